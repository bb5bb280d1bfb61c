import { CallDiagnosis, type ConnectionMeta, type DiagnosisEvent, type Issue, type IssueChanges, type ScorePoint, type StreamMeta, TICK_LAG_MS } from '@rtcscope/diagnosis';
import { CONNECTION_FIELDS, type CallIssue, type LiveDiagnosis, STREAM_FIELDS } from '@rtcscope/protocol';
import type pg from 'pg';
import { unpackSamples } from './packed.js';
import { insertIssue, insertScores, issueToApi, storeCallScore, updateIssue } from './store.js';

/** One committed batch of one participant, as the diagnosis takes it (plain data: it crosses to the diagnosis thread). */
export interface CallBatch {
  projectId: string;
  callId: string;
  callDbId: number;
  /** A dashboard had the call's page open when the batch came: only then is what changed pushed. */
  watched: boolean;
  connections: ConnectionMeta[];
  streams: StreamMeta[];
  /** `packSamples` of the connection and stream rows: moved to the diagnosis thread, not copied. */
  connectionSamples: Float64Array<ArrayBuffer>;
  streamSamples: Float64Array<ArrayBuffer>;
  events: DiagnosisEvent[];
}

/** Where the runner sends what open call pages should show, and what the operator should read. */
export interface RunnerOutput {
  push(projectId: string, change: LiveDiagnosis): void;
  warn(err: unknown, msg: string, callId?: string): void;
}

/** A call being diagnosed on this node. */
interface LiveCall {
  projectId: string;
  callId: string;
  callDbId: number;
  diagnosis: CallDiagnosis;
  lastSeen: number;
  watched: boolean;
  /** Each raised issue's stored id, once stored. */
  ids: Map<Issue, Promise<number>>;
  /** Stores go one after the other, so an issue is stored before it is updated. */
  writes: Promise<void>;
}

/** A call no batch has come for in this long is no longer diagnosed here (its open windows are scored). */
const IDLE_MS = 60_000;

/**
 * Runs the diagnosis of every call whose batches this node commits: fed from the committed batch (no
 * database read on the ingest path), stored behind it, and pushed to the call's open dashboards. It
 * runs on the diagnosis thread (`thread.ts`), off the event loop that acknowledges batches.
 */
export class LiveDiagnosisRunner {
  private readonly calls = new Map<string, LiveCall>();
  /** Window scores not stored yet: written together once a second, not a statement per call. */
  private pending: { callDbId: number; point: ScorePoint }[] = [];
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: pg.Pool,
    private readonly out: RunnerOutput,
  ) {}

  /** Feeds a committed batch to its call's diagnosis; a fault here is logged, never the batch's. */
  observe(batch: CallBatch): void {
    try {
      this.feed(batch);
    } catch (err) {
      this.out.warn(err, 'diagnosis: a batch could not be judged', batch.callId);
    }
  }

  private feed(b: CallBatch): void {
    const key = `${b.projectId}:${b.callId}`;
    let call = this.calls.get(key);
    if (!call) {
      call = { projectId: b.projectId, callId: b.callId, callDbId: b.callDbId, diagnosis: new CallDiagnosis(), lastSeen: 0, watched: false, ids: new Map(), writes: Promise.resolve() };
      this.calls.set(key, call);
    }
    call.lastSeen = Date.now();
    call.watched = b.watched;
    const d = call.diagnosis;
    for (const conn of b.connections) d.declareConnection(conn);
    for (const s of b.streams) d.declareStream(s);
    this.record(call, [
      d.addConnectionSamples(unpackSamples(b.connectionSamples, CONNECTION_FIELDS.length)),
      d.addStreamSamples(unpackSamples(b.streamSamples, STREAM_FIELDS.length)),
      d.addEvents(b.events),
    ]);
  }

  /** Looks across each call's participants; ends the diagnosis of calls gone quiet; stores the scores. */
  tick(now = Date.now()): void {
    this.flushScores();
    for (const [key, call] of this.calls) {
      this.record(call, [call.diagnosis.tick(now - TICK_LAG_MS)]);
      if (now - call.lastSeen > IDLE_MS) {
        this.record(call, [this.ending(call)]);
        this.calls.delete(key);
      }
    }
  }

  private flushScores(): void {
    const rows = this.pending;
    if (!rows.length) return;
    this.pending = [];
    this.flushing = this.flushing
      .then(() => insertScores(this.pool, rows))
      .catch((err: unknown) => this.out.warn(err, 'diagnosis: could not store window scores'));
  }

  /**
   * The call ended (all its participants left): what was still wrong ends with its last sample, and once
   * its last windows are stored the call's score is written on it (also for a call this thread did not
   * hold: judged before a restart, its windows are stored).
   */
  ended(projectId: string, callId: string): void {
    const key = `${projectId}:${callId}`;
    const call = this.calls.get(key);
    if (call) {
      this.record(call, [this.ending(call)]);
      this.calls.delete(key);
    }
    this.flushScores();
    const stored = Promise.all([call?.writes, this.flushing]);
    this.flushing = stored
      .then(() => storeCallScore(this.pool, projectId, callId))
      .catch((err: unknown) => this.out.warn(err, "diagnosis: could not store the call's score", callId));
  }

  /** Stores the open windows' scores and waits for every store to end; open issues stay open (another node may take the call). */
  async close(): Promise<void> {
    for (const call of this.calls.values()) this.record(call, [{ raised: [], updated: [], cleared: [], scores: call.diagnosis.finish() }]);
    this.flushScores();
    await Promise.all([...this.calls.values()].map((c) => c.writes));
    await this.flushing;
  }

  /** A call gone quiet has ended here: its open windows are scored and its open issues end with its last sample. */
  private ending(call: LiveCall): IssueChanges {
    const last = call.diagnosis.lastSampleAt;
    return { ...(last === null ? { raised: [], updated: [], cleared: [] } : call.diagnosis.end(last)), scores: call.diagnosis.finish() };
  }

  private record(call: LiveCall, all: IssueChanges[]): void {
    const raised = all.flatMap((c) => c.raised);
    const changed = all.flatMap((c) => [...c.updated, ...c.cleared]);
    const scores: ScorePoint[] = all.flatMap((c) => c.scores);
    if (scores.length) {
      for (const point of scores) this.pending.push({ callDbId: call.callDbId, point });
      if (call.watched) this.out.push(call.projectId, { callId: call.callId, issues: [], scores: scores.map((s) => ({ streamId: s.streamId, participantId: s.participant, kind: s.kind, ts: s.ts, mos: s.mos })) });
    }
    if (!raised.length && !changed.length) return;
    for (const issue of raised) call.ids.set(issue, call.writes.then(() => insertIssue(this.pool, call.projectId, call.callDbId, issue)));
    call.writes = call.writes
      .then(async () => {
        // An issue raised and cleared by one batch is in both lists: it is pushed once, as it is now.
        const issues = new Map<number, CallIssue>();
        for (const issue of raised) {
          const id = await call.ids.get(issue)!;
          issues.set(id, issueToApi(id, call.callId, issue));
        }
        for (const issue of changed) {
          const id = await call.ids.get(issue);
          // An issue raised before this node took the call (a restart) has no id here: it is stored as raised now.
          const stored = id ?? (await insertIssue(this.pool, call.projectId, call.callDbId, issue));
          await updateIssue(this.pool, stored, issue);
          issues.set(stored, issueToApi(stored, call.callId, issue));
          if (issue.end !== null) call.ids.delete(issue);
        }
        if (call.watched) this.out.push(call.projectId, { callId: call.callId, issues: [...issues.values()], scores: [] });
      })
      .catch((err: unknown) => this.out.warn(err, 'diagnosis: could not store what it found', call.callId));
  }
}
