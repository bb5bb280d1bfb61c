import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../src/db/notifications.js';
import type { Database } from '../src/db/database.js';
import { freshDatabase } from './harness.js';

let fresh: { db: Database; url: string; drop(): Promise<void> };
beforeAll(async () => {
  fresh = await freshDatabase();
});
afterAll(() => fresh.drop());

const notify = (payload: string) => fresh.db.pool.query("SELECT pg_notify('test_channel', $1)", [payload]);

describe('listen', () => {
  it(
    'hears notices on its channel, connects again when its connection is ended, and says so to catch up',
    { timeout: 30_000 },
    async () => {
      const heard: string[] = [];
      let reconnects = 0;
      let losses = 0;
      const listener = listen(fresh.url, 'test_channel', {
        onNotice: (payload) => heard.push(payload),
        onReconnect: () => reconnects++,
        onLost: () => losses++,
      });
      const listening = async () =>
        (
          await fresh.db.pool.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = \'LISTEN "test_channel"\'',
          )
        ).rows[0]!.n;
      await expect.poll(listening).toBe(1);
      await notify('one');
      await fresh.db.pool.query("SELECT pg_notify('other_channel', 'not ours')");
      await expect.poll(() => heard).toEqual(['one']);

      await fresh.db.pool.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = \'LISTEN "test_channel"\'');
      await expect.poll(() => losses).toBe(1);
      await expect.poll(() => reconnects, { timeout: 10_000 }).toBe(1);
      await notify('two');
      await expect.poll(() => heard).toEqual(['one', 'two']);

      await listener.close();
      await expect.poll(listening).toBe(0);
      // A sentinel: a listener still open hears 'three', so the closed one would have heard it by then.
      const sentinel: string[] = [];
      const other = listen(fresh.url, 'test_channel', {
        onNotice: (payload) => sentinel.push(payload),
        onReconnect: () => {},
        onLost: () => {},
      });
      await expect.poll(listening).toBe(1);
      await notify('three');
      await expect.poll(() => sentinel).toEqual(['three']);
      await other.close();
      expect(heard).toEqual(['one', 'two']);
    },
  );
});
