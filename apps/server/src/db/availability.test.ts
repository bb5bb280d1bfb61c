import { afterEach, describe, expect, it, vi } from 'vitest';
import { databaseUnavailable, OUTAGE_TAIL_MS, OutageLog } from './availability.js';

const adapter = (cause: object) => ({ code: 'P2010', meta: { driverAdapterError: { name: 'DriverAdapterError', cause } } });

describe('databaseUnavailable', () => {
  it('knows a database that cannot be reached or went away, as node-postgres and Prisma say it', () => {
    for (const err of [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      { code: 'P1001', message: "Can't reach database server" },
      adapter({ kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 5432 }),
      adapter({ kind: 'ConnectionClosed' }),
      adapter({ kind: 'postgres', code: '57P01' }),
    ]) {
      expect(databaseUnavailable(err)).toBe(true);
    }
  });

  it('tells those apart from a query the database refused, and from anything else', () => {
    for (const err of [
      Object.assign(new Error('invalid input syntax'), { code: '22P02' }),
      Object.assign(new Error('duplicate key'), { code: '23505' }),
      { code: 'P2002', message: 'Unique constraint failed' },
      adapter({ kind: 'postgres', code: '22021' }),
      new Error('Maximum call stack size exceeded'),
      null,
      'text',
    ]) {
      expect(databaseUnavailable(err)).toBe(false);
    }
  });
});

describe('OutageLog', () => {
  afterEach(() => vi.useRealTimers());
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const recorder = () => {
    const lines: string[] = [];
    return { lines, log: new OutageLog({ warn: (_o, msg) => lines.push(msg), info: (msg) => lines.push(msg) }) };
  };

  it('says once that the database went away and once that it is back, however many messages meet it', () => {
    vi.useFakeTimers({ now: 0 });
    const { lines, log } = recorder();
    for (let k = 0; k < 100; k++) expect(log.failed(refused)).toBe(true);
    vi.advanceTimersByTime(4_200);
    log.succeeded();
    log.succeeded();
    expect(lines).toEqual([
      'the database is unavailable: SDK batches are refused, to be sent again, until it is back',
      'the database is back after 4.2 s',
    ]);
  });

  it('counts the stale connections failing just after it is back as that outage ending, and a later one as news', () => {
    vi.useFakeTimers({ now: 0 });
    const { lines, log } = recorder();
    log.failed(refused);
    vi.advanceTimersByTime(3_000);
    log.succeeded();
    vi.advanceTimersByTime(OUTAGE_TAIL_MS - 1);
    expect(log.failed(new Error('Connection terminated unexpectedly'))).toBe(true);
    log.succeeded();
    expect(lines).toHaveLength(2);
    vi.advanceTimersByTime(1);
    log.failed(refused);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(/^the database is unavailable/);
  });

  it('leaves errors that are not an outage to the caller', () => {
    const { lines, log } = recorder();
    expect(log.failed(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(lines).toEqual([]);
  });
});
