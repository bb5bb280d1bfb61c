import { getPriority } from 'node:os';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { lowerPriority } from './priority.js';

/** A connection whose backend reports `pid` and `addr`, as PostgreSQL's would. */
const reporting = (pid: number, addr: string | null) => ({ query: async () => ({ rows: [{ pid, addr }] }) }) as unknown as pg.ClientBase;

describe('lowerPriority', () => {
  it('leaves a backend on another machine alone, and says so', async () => {
    expect(await lowerPriority(reporting(process.pid, '10.0.0.7'))).toEqual({
      lowest: false,
      why: 'PostgreSQL is reached at 10.0.0.7, not on this machine',
    });
    expect(getPriority(process.pid)).toBe(0);
  });

  it('lowers no process of this machine that is not PostgreSQL, whatever its id', async () => {
    expect(await lowerPriority(reporting(process.pid, '127.0.0.1'))).toEqual({
      lowest: false,
      why: `process ${process.pid} of this machine is not PostgreSQL's`,
    });
    expect(getPriority(process.pid)).toBe(0);
  });

  it('says why when the id names no process', async () => {
    const result = await lowerPriority(reporting(2 ** 22 + 1, null));
    expect(result.lowest).toBe(false);
    expect(result).toMatchObject({ why: expect.stringContaining('ENOENT') });
  });
});
