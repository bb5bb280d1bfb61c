import { CallDiagnosis, type Issue, type IssueChanges, type ScorePoint, TICK_LAG_MS } from '@rtcscope/diagnosis';
import type { CallIssue } from '@rtcscope/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import type { Committed, IngestSession } from '../ingest/session.js';
import type { LiveHub } from '../live/hub.js';
import { insertIssue, insertScores, issueToApi, updateIssue } from './store.js';

/** A call being diagnosed on this node. */
interface LiveCall {
  projectId: string;
  callId: string;
  callDbId: number;
  diagnosis: CallDiagnosis;
  lastSeen: number;
  /** Each raised issue's stored id, once stored. */
  ids: Map<Issue, Promise<number>>;
  /** Stores go one after the other, so an issue is stored before it is updated. */
  writes: Promise<void>;
}

/** A call no batch has come for in this long is no longer diagnosed here (its open windows are scored). */
const IDLE_MS = 60_000;

/**
 * Runs the diagnosis of every call whose batches this node commits: fed from the committed batch (no
 * database read on the ingest path), stored behind it, and pushed to the call's open dashboards.
 */
export class LiveDiagnosisRunner {
  private readonly calls = new Map<string, LiveCall>();
  /** Window scores not stored yet: written together once a second, not a statement per call. */
  private pending: { callDbId: number; point: ScorePoint }[] = [];
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: pg.Pool,
    private readonly live: LiveHub,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Feeds a committed batch to its call's diagnosis; a fault here is logged, never the batch's. */
  observe(session: IngestSession, c: Committed): void {
    try {
      this.feed(session, c);
    } catch (err) {
      this.log.error({ err, callId: session.handshake.callId }, 'diagnosis: a batch could not be judged');
    }
  }

  private feed(session: IngestSession, c: Committed): void {
    const callDbId = session.callDbId;
    if (callDbId === null) return;
    const { projectId, handshake } = session;
    const key = `${projectId}:${handshake.callId}`;
    let call = this.calls.get(key);
    if (!call) {
      call = { projectId, callId: handshake.callId, callDbId, diagnosis: new CallDiagnosis(), lastSeen: 0, ids: new Map(), writes: Promise.resolve() };
      this.calls.set(key, call);
    }
    call.lastSeen = Date.now();
    const participant = handshake.participantId;
    const d = call.diagnosis;
    for (const conn of c.newConnections) d.declareConnection({ id: conn.id, participant, localCandidateType: conn.localCandidateType, localProtocol: conn.localProtocol });
    for (const s of c.newStreams) d.declareStream({ id: s.id, participant, connectionId: s.connectionId, direction: s.direction, kind: s.kind, ssrc: s.ssrc, codec: s.codec });
    const sample = (r: Committed['streamRows'][number]) => ({ id: r.index, ts: r.ts, v: r.values });
    this.record(call, [
      d.addConnectionSamples(c.connectionRows.map(sample)),
      d.addStreamSamples(c.streamRows.map(sample)),
      d.addEvents(c.events.map((e) => ({ ts: e.ts, participant, connectionId: e.connectionDbId, type: e.type, detail: e.detail }))),
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
      .catch((err: unknown) => this.log.warn({ err }, 'diagnosis: could not store window scores'));
  }

  /** The call ended (all its participants left): what was still wrong ends with its last sample. */
  ended(projectId: string, callId: string): void {
    const key = `${projectId}:${callId}`;
    const call = this.calls.get(key);
    if (!call) return;
    this.record(call, [this.ending(call)]);
    this.calls.delete(key);
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
      this.live.diagnosis(call.projectId, { callId: call.callId, issues: [], scores: scores.map((s) => ({ streamId: s.streamId, participantId: s.participant, kind: s.kind, ts: s.ts, mos: s.mos })) });
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
        this.live.diagnosis(call.projectId, { callId: call.callId, issues: [...issues.values()], scores: [] });
      })
      .catch((err: unknown) => this.log.warn({ err, callId: call.callId }, 'diagnosis: could not store what it found'));
  }
}
