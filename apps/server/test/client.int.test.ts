import { describe, expect, it } from 'vitest';
import { withClient } from '../src/db/client.js';
import { freshDatabase } from './harness.js';

describe('a client of its own', () => {
  it('survives the database ending its connection between two queries, and is not returned to the pool', async () => {
    const { db, drop } = await freshDatabase();
    try {
      let pid = 0;
      const work = withClient(db.pool, async (client) => {
        pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        const ended = new Promise((resolve) => client.once('end', resolve));
        await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
        // The error arrives while no query runs: with no listener it would end the process.
        await ended;
        return client.query('SELECT 1');
      });
      await expect(work).rejects.toThrow();
      const pids = await Promise.all(
        [1, 2, 3, 4].map(() => db.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.05)')),
      );
      expect(pids.map((r) => r.rows[0]!.pid)).not.toContain(pid);
    } finally {
      await drop();
    }
  });
});
