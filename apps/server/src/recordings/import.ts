import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { type Batch, type DecodedBatch, decodeBatch, toId } from '@rtcscope/protocol';
import { browserLabel, clientOf } from '../clients/client.js';
import type { Database } from '../db/database.js';
import { withClient } from '../db/client.js';
import { insertIssues, insertScores, storeCallScore } from '../diagnosis/store.js';
import { diagnoseStored } from '../diagnosis/stored.js';
import type { Registrar } from '../ingest/entities.js';
import type { GroupCommitter } from '../ingest/group-commit.js';
import { IngestSession } from '../ingest/session.js';
import { MAX_AHEAD_MS } from '../ingest/time-window.js';
import { RecordingError } from './errors.js';
import { type ReadRecording, readRecording, type Route } from './read.js';
import type { RecordingFormat } from './source.js';

/** Each import spools its upload into a folder named for the process: `rtcscope-recording-<pid>-…`. */
const SPOOL_PREFIX = 'rtcscope-recording-';

export interface ImportedRecording {
  callId: string;
  /** The same file was imported before: this is its call, and nothing was stored now. */
  duplicate: boolean;
  format: RecordingFormat;
  browser: string | null;
  samples: number;
}

export interface ImportDeps {
  db: Database;
  registrar: Registrar;
  committer: GroupCommitter;
}

/**
 * Imports a recording as an ended call: read whole first (a file that is not a recording, or is cut
 * off, is an error naming its line or field, and nothing of it is stored), then written through the
 * ingest path as the participant's monitor would have sent it live, then judged by the diagnosis. The
 * call's id comes from the file's hash: the same file imported again gives its call back.
 */
export async function importRecording(deps: ImportDeps, projectId: string, fileName: string, input: Readable): Promise<ImportedRecording> {
  // Read twice, as the file streams in and then from a copy of it: once to know it whole (a bad or cut-off
  // file stores nothing), once to store it batch by batch, so no more than a batch is held at a time.
  const dir = await mkdtemp(join(tmpdir(), `${SPOOL_PREFIX}${process.pid}-`));
  try {
    const copyPath = join(dir, 'upload');
    const copy = createWriteStream(copyPath);
    const checked = new BatchCheck();
    const read = await readRecording(input, (batch) => void checked.decode(batch), copy);
    await new Promise<void>((resolve, reject) => copy.end((err?: Error | null) => (err ? reject(err) : resolve())));
    refuseFuture(checked.lastTs);
    const hex = read.hash.toString('hex');
    const callId = `rec-${hex.slice(0, 16)}`;
    const recorder = clientOf({ userAgent: read.userAgent ?? undefined });
    const browser = browserLabel(recorder);
    const result = { callId, format: read.format, browser, samples: read.samples };

    // One import of a file at a time: a second upload of it waits, then finds the first's call. The lock
    // is the session's, so it is held on a `pg` connection of its own while the import goes through others.
    return await withClient(deps.db.pool, async (client) => {
      const lock = read.hash.readBigInt64BE(0);
      await client.query('SELECT pg_advisory_lock($1)', [lock]);
      try {
        const known = await deps.db.prisma.recording.findUnique({
          where: { projectId_sha256: { projectId, sha256: new Uint8Array(read.hash) } },
          select: { call: { select: { externalId: true } } },
        });
        if (known) return { ...result, callId: known.call.externalId, duplicate: true };
        const callDbId = await createImportedCall(
          deps.db,
          projectId,
          callId,
          Number.isFinite(checked.firstTs) ? checked.firstTs : Date.now(),
        );
        const loopback = read.participants.size === 0 && read.loopback.length > 0;
        const metadata = {
          recording: fileName.slice(0, 100),
          recordingFormat: read.format,
          importedAt: new Date().toISOString(),
          ...(browser ? { browser } : {}),
          ...(loopback ? { loopback: true } : {}),
        };
        const sessions = new Map<string | null, { session: IngestSession; check: BatchCheck }>();
        const sessionOf = (participant: string | null) => {
          const known = sessions.get(participant);
          if (known) return known;
          const made = {
            session: new IngestSession(
              deps.db,
              deps.registrar,
              deps.committer,
              projectId,
              {
                v: 1,
                key: '',
                callId,
                participantId: participant ?? participantOf(browser),
                // The same session again after a failed import: its rows are recognised, not stored twice.
                session: `rec-${hex.slice(0, 24)}${sessions.size ? `-${sessions.size}` : ''}`,
                metadata,
                sdk: 'rtcscope-import',
              },
              recorder,
            ),
            check: new BatchCheck(),
          };
          sessions.set(participant, made);
          return made;
        };
        const route = routeOf(read, participantOf(browser), loopback);
        await readRecording(
          createReadStream(copyPath),
          async (batch, participant) => {
            const { session, check } = sessionOf(participant);
            await session.write(check.decode(batch));
          },
          undefined,
          route,
        );
        const written = [...sessions.values()];
        await endAt(deps.db, callDbId, Math.max(...written.map((w) => w.check.lastTs)));
        await judge(deps.db, projectId, callId, callDbId);
        await deps.db.prisma.recording.create({
          data: { projectId, sha256: new Uint8Array(read.hash), callId: callDbId, fileName, format: read.format, bytes: read.bytes },
        });
        return { ...result, duplicate: false };
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [lock]);
      }
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Removes the spooled copies that imports of processes no longer running left (a crash, a kill). */
export async function removeOrphanSpools(): Promise<number> {
  let removed = 0;
  for (const name of await readdir(tmpdir())) {
    const pid = name.startsWith(SPOOL_PREFIX) ? Number(name.slice(SPOOL_PREFIX.length).split('-')[0]) : 0;
    if (!pid || isRunning(pid)) continue;
    await rm(join(tmpdir(), name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Batches decoded as ingest decodes a monitor's, one after another, with the time they span. */
class BatchCheck {
  private readonly streams = new Set<number>();
  private readonly conns = new Set<number>();
  firstTs = Infinity;
  lastTs = -Infinity;

  decode(batch: Batch): DecodedBatch {
    const decoded = decodeBatch(batch, this.streams, this.conns);
    if (!decoded.ok) throw new RecordingError(`sample ${decoded.error.field}`, decoded.error.message);
    for (const s of batch.streams ?? []) this.streams.add(s.i);
    for (const c of batch.conns ?? []) this.conns.add(c.i);
    for (const rows of [decoded.value.streamRows, decoded.value.connectionRows]) {
      for (const r of rows) {
        if (r.ts < this.firstTs) this.firstTs = r.ts;
        if (r.ts > this.lastTs) this.lastTs = r.ts;
      }
    }
    return decoded.value;
  }
}

/**
 * Whose each connection is: as the file says (an rtcscope export keeps a call's participants apart); in
 * a loopback page, each end of the call a participant of its own (named for its connection), so that
 * neither's rates are added to the other's; in a webrtc-internals dump of several pages (tabs: its
 * connections are named `process-connection`), a participant per page; else the recording's one participant.
 */
function routeOf(read: ReadRecording, base: string, loopback: boolean): Route {
  if (read.participants.size) return (connection) => read.participants.get(connection) ?? null;
  const ends = new Set(loopback ? read.loopback : []);
  const pages = new Set(read.connections.map(pageOf));
  if (!ends.size && pages.size < 2) return () => null;
  const named = (suffix: string) => toId(`${base}-${suffix}`);
  return (connection) => (ends.has(connection) ? named(connection) : pages.size > 1 ? named(`page-${pageOf(connection)}`) : null);
}

/** The page a connection is on, where its name says: Chrome names a dump's connections `process-connection`. */
const pageOf = (connection: string) => /^(\d+)-\d+$/.exec(connection)?.[1] ?? '';

/** Samples from a clock far ahead are not taken: the recording computer's clock was wrong. */
function refuseFuture(lastTs: number): void {
  if (lastTs > Date.now() + MAX_AHEAD_MS) {
    throw new RecordingError(
      'file',
      `its times run to ${new Date(lastTs).toISOString().slice(0, 10)}, in the future: the recording computer's clock was wrong`,
    );
  }
}

/**
 * The call a recording becomes, made before its samples so that its streams take the imported tier's
 * ids: it is kept from now for the project's retention, whatever its recorded dates (expiry.ts).
 */
async function createImportedCall(db: Database, projectId: string, callId: string, firstTs: number): Promise<number> {
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO call (project_id, external_id, started_at, last_seen_at, imported_at) VALUES ($1, $2, to_timestamp($3 / 1000.0), to_timestamp($3 / 1000.0), now())
     ON CONFLICT (project_id, external_id) DO UPDATE SET imported_at = coalesce(call.imported_at, now()) RETURNING id`,
    [projectId, callId, firstTs],
  );
  return Number(rows[0]!.id);
}

/** A recording ends where its samples do: its participant left then, and its call ended. */
async function endAt(db: Database, callDbId: number, lastTs: number): Promise<void> {
  await db.pool.query(
    `WITH p AS (UPDATE participant SET left_at = to_timestamp($2 / 1000.0), last_seen_at = to_timestamp($2 / 1000.0) WHERE call_id = $1)
     UPDATE call SET ended_at = to_timestamp($2 / 1000.0), last_seen_at = to_timestamp($2 / 1000.0) WHERE id = $1`,
    [callDbId, lastTs],
  );
}

/** The recorded call's issues and scores, found by the same diagnosis a live call has. */
async function judge(db: Database, projectId: string, callId: string, callDbId: number): Promise<void> {
  const found = await diagnoseStored(db, projectId, callId);
  if (!found) return;
  const { issues, scores } = found;
  await insertIssues(db.pool, projectId, callDbId, issues);
  await insertScores(
    db.pool,
    scores.map((point) => ({ callDbId, point })),
  );
  await storeCallScore(db.pool, projectId, callId);
}

const participantOf = (browser: string | null): string => toId((browser ?? 'recorded').toLowerCase());
