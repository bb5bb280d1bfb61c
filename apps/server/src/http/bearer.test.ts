import { describe, expect, it } from 'vitest';
import { bearerToken } from './bearer.js';

describe('bearerToken', () => {
  it('takes the scheme in any case, with the spaces around the token', () => {
    for (const header of ['Bearer rk_a', 'bearer rk_a', 'BEARER  rk_a ']) expect(bearerToken(header)).toBe('rk_a');
  });
  it('finds none in another scheme, an empty or a missing header, or two tokens', () => {
    for (const header of ['Basic rk_a', 'Bearer', 'Bearer ', '', undefined, 'Bearer rk_a rk_b', 'Bearerrk_a']) expect(bearerToken(header)).toBeNull();
  });
});
