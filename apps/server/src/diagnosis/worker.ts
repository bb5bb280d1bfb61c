import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { LiveDiagnosisRunner } from './live.js';
import type { FromThread, ToThread } from './thread.js';

/** The diagnosis thread: judges the batches the ingest thread hands it, stores and reports what it finds. */
const port = parentPort!;
const { databaseUrl } = workerData as { databaseUrl: string };
const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
pool.on('error', () => {}); // an idle client that dies is replaced on next use
const send = (m: FromThread) => port.postMessage(m);

// Changes for call pages go over in one message every few milliseconds, not one per call.
let pushes: Extract<FromThread, { type: 'push' }>['changes'] = [];
const flushPushes = () => {
  send({ type: 'push', changes: pushes });
  pushes = [];
};

const runner = new LiveDiagnosisRunner(pool, {
  push: (projectId, change) => {
    if (!pushes.length) setTimeout(flushPushes, 20);
    pushes.push({ projectId, change });
  },
  warn: (err, msg, callId) => send({ type: 'warn', msg, callId, error: err instanceof Error ? err.message : String(err) }),
});
const timer = setInterval(() => runner.tick(), 1000);

port.on('message', (m: ToThread) => {
  if (m.type === 'batches') for (const batch of m.batches) runner.observe(batch);
  else if (m.type === 'ended') runner.ended(m.projectId, m.callId);
  else void close();
});

async function close(): Promise<void> {
  clearInterval(timer);
  await runner.close();
  if (pushes.length) flushPushes();
  await pool.end();
  send({ type: 'closed' });
  port.close();
}
