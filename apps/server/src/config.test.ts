import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('loadConfig', () => {
  it('applies defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.databaseUrl).toBeUndefined();
    expect(c.callIdleTimeoutS).toBe(30);
    expect(c.projectIngestLimit).toBe(20_000);
  });
  it('takes a per-project ingest limit, or none', () => {
    expect(loadConfig({ PROJECT_INGEST_LIMIT: '50000' }).projectIngestLimit).toBe(50_000);
    expect(loadConfig({ PROJECT_INGEST_LIMIT: 'off' }).projectIngestLimit).toBeNull();
    expect(() => loadConfig({ PROJECT_INGEST_LIMIT: '999' })).toThrow(/PROJECT_INGEST_LIMIT must be samples a second from 1000/);
    expect(() => loadConfig({ PROJECT_INGEST_LIMIT: 'lots' })).toThrow(/PROJECT_INGEST_LIMIT/);
  });
  it('takes the REST rate limit per client address', () => {
    expect(loadConfig({}).apiRateLimit).toBe(600);
    expect(loadConfig({ API_RATE_LIMIT: '6000' }).apiRateLimit).toBe(6000);
    expect(() => loadConfig({ API_RATE_LIMIT: '5' })).toThrow(/API_RATE_LIMIT/);
  });

  it('trusts no proxy unless told how many stand in front, or which', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8,127.0.0.1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(() => loadConfig({ TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY must be off, how many proxies/);
  });

  it('names the variable that is wrong', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ CALL_IDLE_TIMEOUT_S: '1' })).toThrow(/CALL_IDLE_TIMEOUT_S/);
  });
});
