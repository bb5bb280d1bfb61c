import { describe, expect, it } from 'vitest';
import { databaseUnavailable } from './availability.js';

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
