import { existsSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabase } from './harness.js';

let t: Awaited<ReturnType<typeof freshDatabase>>;
beforeAll(async () => {
  t = await freshDatabase();
});
afterAll(() => t.drop());

/** A process's autogroup nice (Linux shares CPU time between sessions first), or null without autogroup. */
const sessionNice = (pid: number) =>
  existsSync(`/proc/${pid}/autogroup`) ? Number(/nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'))![1]) : null;

const backend = async (pool: typeof t.db.pool) => (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

it("runs the background connection's PostgreSQL process at the lowest CPU priority, and no other", async () => {
  const background = await backend(t.db.background.pool);
  expect(t.db.background.priority).toEqual({ lowest: true });
  expect(getPriority(background)).toBe(19);
  expect(sessionNice(background)).toBeOneOf([19, null]);
  // The same connection serves the next background statement, and ingest's connections are untouched.
  expect(await backend(t.db.background.pool)).toBe(background);
  const ingest = await backend(t.db.pool);
  expect(getPriority(ingest)).toBe(0);
  expect(sessionNice(ingest)).toBeOneOf([0, null]);
});
