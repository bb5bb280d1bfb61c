import { describe, expect, it } from 'vitest';
import { basicPassword, bearerToken } from './credentials.js';

describe('bearerToken', () => {
  it('takes the scheme in any case, with the spaces around the token', () => {
    for (const header of ['Bearer rk_a', 'bearer rk_a', 'BEARER  rk_a ']) expect(bearerToken(header)).toBe('rk_a');
  });
  it('finds none in another scheme, an empty or a missing header, or two tokens', () => {
    for (const header of ['Basic rk_a', 'Bearer', 'Bearer ', '', undefined, 'Bearer rk_a rk_b', 'Bearerrk_a'])
      expect(bearerToken(header)).toBeNull();
  });
});

describe('basicPassword', () => {
  const basic = (userPassword: string) => `Basic ${Buffer.from(userPassword).toString('base64')}`;
  it('takes the password after the first colon, whatever the user name', () => {
    expect(basicPassword(basic('rtcscope:rk_a'))).toBe('rk_a');
    expect(basicPassword(basic(':rk_a'))).toBe('rk_a');
    expect(basicPassword(basic('user:rk:a'))).toBe('rk:a');
    expect(basicPassword(`basic  ${Buffer.from('u:rk_a').toString('base64')} `)).toBe('rk_a');
  });
  it('finds none without a password, in another scheme or in what is not base64', () => {
    for (const header of [basic('rk_a'), basic('u:'), 'Bearer rk_a', 'Basic', 'Basic ***', '', undefined])
      expect(basicPassword(header)).toBeNull();
  });
});
