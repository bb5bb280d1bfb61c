import { describe, expect, it } from 'vitest';
import { turnLineShown } from './local-turn.js';

// Lines as coturn 4.6 (Debian's) writes them with `simple-log`.
describe("the local coturn's log in the start command's terminal", () => {
  it('shows its errors, and not the answers TURN gives in its normal course', () => {
    const normal = [
      'session 000000000000000001: realm <rtcscope.local> user <>: incoming packet ALLOCATE processed, error 401: Unauthorized',
      'session 000000000000000002: realm <rtcscope.local> user <1795590499:p0>: incoming packet REFRESH processed, error 438: Stale nonce',
      'session 000000000000000002: realm <rtcscope.local> user <1795590499:p0>: incoming packet REFRESH processed, error 437: Allocation mismatch',
      'session 000000000000000003: realm <rtcscope.local> user <1795590499:p0>: incoming packet ALLOCATE processed, success',
    ];
    const wrong = [
      'ERROR: check_stun_auth: Cannot find credentials of user <1795590499:p0>',
      'session 000000000000000004: realm <rtcscope.local> user <1795590499:p0>: incoming packet ALLOCATE processed, error 441: Wrong credentials',
      'ERROR: Cannot bind local socket to addr: Address already in use',
    ];
    expect(normal.filter(turnLineShown)).toEqual([]);
    expect(wrong.filter(turnLineShown)).toEqual(wrong);
  });
});
