import { describe, expect, it } from 'vitest';
import { turnCredentials } from './turn-credentials.js';

describe('turnCredentials', () => {
  const now = Date.UTC(2026, 10, 28, 12, 0, 0);

  it('names the expiry in Unix seconds and the label, and lasts the time asked', () => {
    const c = turnCredentials('s3cret', 'precall-ab12', 600, now);
    expect(c.username).toBe(`${now / 1000 + 600}:precall-ab12`);
    expect(c.expiresAt).toBe(now + 600_000);
  });

  it('signs the user name with HMAC-SHA1 under the secret, in base64 (the scheme coturn checks)', () => {
    // Known answer, from `printf '%s' 1764331200:precall-ab12 | openssl dgst -sha1 -hmac s3cret -binary | base64`
    // and Python's hmac module alike.
    const c = turnCredentials('s3cret', 'precall-ab12', 600, 1_764_330_600_000);
    expect(c.username).toBe('1764331200:precall-ab12');
    expect(c.credential).toBe('g0WhO7/npF17QpRwqqLf+2x2lig=');
  });

  it('gives another password for another label, expiry or secret', () => {
    const base = turnCredentials('s3cret', 'a', 600, now).credential;
    expect(turnCredentials('s3cret', 'b', 600, now).credential).not.toBe(base);
    expect(turnCredentials('s3cret', 'a', 601, now).credential).not.toBe(base);
    expect(turnCredentials('other', 'a', 600, now).credential).not.toBe(base);
  });
});
