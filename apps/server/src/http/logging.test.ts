import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { redactKeys, requestLog } from './logging.js';

describe('request logs', () => {
  it('never carry a key put in a URL, of any kind, in the path or the query', () => {
    const request = { method: 'GET', url: '/api/v1/calls?key=rk_AbC-12_x&token=at_Zz9&x=1', host: 'h', ip: '127.0.0.1', socket: { remotePort: 5 } };
    expect(requestLog(request as unknown as FastifyRequest)).toEqual({
      method: 'GET',
      url: '/api/v1/calls?key=rk_[redacted]&token=at_[redacted]&x=1',
      host: 'h',
      remoteAddress: '127.0.0.1',
      remotePort: 5,
    });
    expect(redactKeys('/sdk/ik_secretsecret/x')).toBe('/sdk/ik_[redacted]/x');
  });

  it('leave words that only end in the same letters alone', () => {
    expect(redactKeys('/calls?q=bark_1&what_ever=2')).toBe('/calls?q=bark_1&what_ever=2');
  });
});
