import Fastify, { type FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { QuietRequests, redactKeys, requestLog } from './logging.js';

describe('request logs', () => {
  it('never carry a key put in a URL, of any kind, in the path or the query', () => {
    const request = {
      method: 'GET',
      url: '/api/v1/calls?key=rk_AbC-12_x&token=at_Zz9&x=1',
      host: 'h',
      ip: '127.0.0.1',
      socket: { remotePort: 5 },
    };
    expect(requestLog(request as unknown as FastifyRequest)).toEqual({
      method: 'GET',
      url: '/api/v1/calls?key=rk_[redacted]&token=at_[redacted]&x=1',
      host: 'h',
      remoteAddress: '127.0.0.1',
      remotePort: 5,
    });
    expect(redactKeys('/sdk/ik_secretsecret/x')).toBe('/sdk/ik_[redacted]/x');
  });

  it('never carry a session, a sign-in link, a reset or an invitation token', () => {
    expect(redactKeys('/x?a=ss_s1-x&b=sl_l1&c=pr_r1&d=iv_i1')).toBe('/x?a=ss_[redacted]&b=sl_[redacted]&c=pr_[redacted]&d=iv_[redacted]');
  });

  it("never carry a sign-on callback's code or state", () => {
    expect(redactKeys('/api/v1/auth/sso/callback?code=abc.DEF-1&state=xyz&iss=http%3A%2F%2Fidp')).toBe(
      '/api/v1/auth/sso/callback?code=[redacted]&state=[redacted]&iss=http%3A%2F%2Fidp',
    );
  });

  it('leave words that only end in the same letters alone', () => {
    expect(redactKeys('/calls?q=bark_1&what_ever=2')).toBe('/calls?q=bark_1&what_ever=2');
  });
});

describe('request logging', () => {
  async function linesOf(level: string, route: () => unknown): Promise<string[]> {
    const lines: string[] = [];
    const app = Fastify({
      logger: { level, stream: { write: (line: string) => void lines.push(line) } },
      logController: new QuietRequests(),
    });
    app.get('/x', route);
    await app.inject({ url: '/x' });
    await app.close();
    return lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
  }

  it('logs requests at debug, so the default level shows none', async () => {
    expect(await linesOf('info', () => 'ok')).not.toContain('request completed');
    expect(await linesOf('debug', () => 'ok')).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
  });

  it('still logs the error of a request that failed', async () => {
    expect(await linesOf('warn', () => Promise.reject(new Error('boom')))).toContain('boom');
  });
});
