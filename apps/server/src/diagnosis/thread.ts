import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PARTICIPANT_LEFT } from '@rtcscope/diagnosis';
import { CONNECTION_FIELDS, type LiveDiagnosis, STREAM_FIELDS } from '@rtcscope/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { BatchOrigin, Committed } from '../samples/write.js';
import type { LiveHub } from '../live/hub.js';
import type { CallBatch } from './live.js';
import { packSamples } from './packed.js';
import { connectionMeta, streamMeta } from './meta.js';

/** What the ingest thread tells the diagnosis thread. */
export type ToThread = { type: 'batches'; batches: CallBatch[] } | { type: 'ended'; projectId: string; callId: string } | { type: 'close' };
/** What the diagnosis thread tells the ingest thread: changes for open call pages, faults for the log, and that it is done. */
export type FromThread =
  | { type: 'push'; changes: { projectId: string; change: LiveDiagnosis }[] }
  | { type: 'warn'; msg: string; callId?: string; error: string }
  | { type: 'closed' };

/**
 * The worker runs TypeScript as the server does: tsx's loader is registered in it before its module is
 * imported (a worker's `--import` runs too late for its own entry point).
 */
function bootstrap(): string {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs');
  const entry = new URL('./worker.ts', import.meta.url).href;
  return `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
}

/** A committed batch waiting for the next hand-over to the diagnosis thread. */
interface Queued {
  session: BatchOrigin;
  callDbId: number;
  committed: Committed;
  watched: boolean;
}

/** Queued batches as the diagnosis takes them, their samples packed into one buffer for them all. */
function callBatches(queued: readonly Queued[]): CallBatch[] {
  const connectionSamples = packSamples(
    queued.map((q) => q.committed.connectionRows),
    CONNECTION_FIELDS.length,
  );
  const streamSamples = packSamples(
    queued.map((q) => q.committed.streamRows),
    STREAM_FIELDS.length,
  );
  return queued.map(({ session, callDbId, committed: c, watched }, k) => {
    const participant = session.handshake.participantId;
    const events = c.events.map((e) => ({ ts: e.ts, participant, connectionId: e.connectionDbId, type: e.type, detail: e.detail }));
    if (c.left) events.push({ ts: Date.now(), participant, connectionId: null, type: PARTICIPANT_LEFT, detail: null });
    return {
      projectId: session.projectId,
      callId: session.handshake.callId,
      callDbId,
      participant,
      watched,
      connections: c.newConnections.map((conn) => connectionMeta(conn, participant)),
      streams: c.newStreams.map((s) => streamMeta(s, participant, s.connectionId)),
      connectionSamples: connectionSamples[k]!,
      streamSamples: streamSamples[k]!,
      events,
    };
  });
}

/**
 * The live diagnosis on a thread of its own (`worker.ts`): the ingest thread hands it each committed
 * batch and goes on acknowledging, so judging calls, scoring windows and storing both never delay an
 * acknowledgement or add to its garbage collector's work. Should the thread die, another is started
 * (the calls then in progress are judged afresh from their next batches).
 */
export class DiagnosisThread {
  private worker: Worker;
  private closing = false;
  /** Batches committed in this turn of the event loop: they go over in one message (a message costs more than packing a batch). */
  private queued: Queued[] = [];

  constructor(
    private readonly databaseUrl: string,
    private readonly live: LiveHub,
    private readonly log: FastifyBaseLogger,
  ) {
    this.worker = this.start();
  }

  private start(): Worker {
    const worker = new Worker(bootstrap(), { eval: true, workerData: { databaseUrl: this.databaseUrl }, name: 'diagnosis' });
    worker.on('message', (m: FromThread) => {
      if (m.type === 'push') for (const { projectId, change } of m.changes) this.live.diagnosis(projectId, change);
      else if (m.type === 'warn') this.log.warn({ callId: m.callId, reason: m.error }, m.msg);
    });
    worker.on('error', (err) => this.log.error({ err }, 'diagnosis thread failed'));
    worker.on('exit', (code) => {
      if (this.closing) return;
      this.log.error(`the diagnosis thread stopped (exit code ${code}); starting it again`);
      this.worker = this.start();
    });
    return worker;
  }

  /** `transfer`: buffers the thread takes over instead of a copy. */
  private send(m: ToThread, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(m, transfer);
  }

  /** Hands a committed batch to the diagnosis. */
  observe(session: BatchOrigin, committed: Committed): void {
    const callDbId = session.callDbId;
    if (callDbId === null) return;
    if (!this.queued.length) setImmediate(() => this.flush());
    this.queued.push({ session, callDbId, committed, watched: this.live.callWatched(session.projectId, session.handshake.callId) });
  }

  private flush(): void {
    if (!this.queued.length) return;
    const batches = callBatches(this.queued);
    this.queued = [];
    this.send({ type: 'batches', batches }, [batches[0]!.connectionSamples.buffer, batches[0]!.streamSamples.buffer]);
  }

  /** The call ended (all its participants left). */
  ended(projectId: string, callId: string): void {
    this.flush();
    this.send({ type: 'ended', projectId, callId });
  }

  /** Waits for the thread to store what it holds (open windows' scores, issue changes), then ends it. */
  async close(): Promise<void> {
    this.closing = true;
    this.flush();
    const worker = this.worker;
    const closed = new Promise<void>((resolve) => {
      worker.on('message', (m: FromThread) => m.type === 'closed' && resolve());
      worker.once('exit', () => resolve());
    });
    this.send({ type: 'close' });
    await closed;
    await worker.terminate();
  }
}
