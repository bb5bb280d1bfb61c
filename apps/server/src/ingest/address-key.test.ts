import { describe, expect, it } from 'vitest';
import { addressKey } from './address-key.js';

describe('addressKey', () => {
  it('keeps an IPv4 address, also one mapped into IPv6', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it("groups an IPv6 address by its /64, so one network's addresses count as one client", () => {
    expect(addressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:ffff:eeee:dddd:cccc')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
  });

  it('leaves loopback out of per-address limits', () => {
    expect(addressKey('127.0.0.1')).toBeNull();
    expect(addressKey('::1')).toBeNull();
    expect(addressKey('::ffff:127.0.0.1')).toBeNull();
  });

  it('takes what is not an address as it is', () => {
    expect(addressKey(undefined)).toBe('unknown');
    expect(addressKey('not-an-ip')).toBe('not-an-ip');
  });
});
