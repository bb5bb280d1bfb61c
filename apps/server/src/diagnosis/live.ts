import {
  CallDiagnosis,
  type ConnectionMeta,
  type DiagnosisEvent,
  type Issue,
  type IssueChanges,
  PARTICIPANT_LEFT,
  type Sample,
  type ScorePoint,
  type StreamMeta,
  TICK_LAG_MS,
} from '@rtcscope/diagnosis';
import { CONNECTION_FIELDS, type CallIssue, type LiveDiagnosis, STREAM_FIELDS } from '@rtcscope/protocol';
import type pg from 'pg';
import { LOOK_BACK_MS, samplesElsewhere, streamsElsewhere } from './elsewhere.js';
import { unpackSamples } from './packed.js';
import { endOpenIssues, insertIssue, insertScores, issueToApi, storeCallScore, updateIssue } from './store.js';

/** One committed batch of one participant, as the diagnosis takes it (plain data: it crosses to the diagnosis thread). */
export interface CallBatch {
  projectId: string;
  callId: string;
  callDbId: number;
  /** Whose batch it is. */
  participant: string;
  /** A dashboard had the call's page open when the batch came: only then is what changed pushed. */
  watched: boolean;
  connections: ConnectionMeta[];
  streams: StreamMeta[];
  /** `packSamples` of the connection and stream rows: views on buffers moved to the diagnosis thread, not copied. */
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
  /** Each raised issue's stored id, once stored: kept for the call's life, as a symptom may be linked to its cause after either ended. */
  ids: Map<Issue, Promise<number>>;
  /** Stores go one after the other, so an issue is stored before it is updated. */
  writes: Promise<void>;
  /** Participants whose batches come here. */
  local: Set<string>;
  /** Streams of the others (their batches go to other nodes): whose, and the newest sample read of each. */
  elsewhere: Map<number, { participant: string; latest: number }>;
  /** The others known to have left. */
  leftElsewhere: Set<string>;
}

/** A call no batch has come for in this long is no longer diagnosed here (its open windows are scored). */
const IDLE_MS = 60_000;
/** How often the held calls' participants on other nodes are looked up. */
const ROSTER_EVERY_MS = 5000;

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
  private looking: Promise<void> | null = null;
  private rosterAt = 0;

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
      call = {
        projectId: b.projectId,
        callId: b.callId,
        callDbId: b.callDbId,
        diagnosis: new CallDiagnosis(),
        lastSeen: 0,
        watched: false,
        ids: new Map(),
        writes: Promise.resolve(),
        local: new Set(),
        elsewhere: new Map(),
        leftElsewhere: new Set(),
      };
      this.calls.set(key, call);
    }
    call.lastSeen = Date.now();
    if (!call.local.has(b.participant)) {
      call.local.add(b.participant);
      for (const [id, s] of call.elsewhere) if (s.participant === b.participant) call.elsewhere.delete(id);
    }
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
    this.looking ??= this.lookElsewhere(now)
      .catch((err: unknown) => this.out.warn(err, "diagnosis: could not read the participants' samples taken by other nodes"))
      .finally(() => (this.looking = null));
    for (const [key, call] of this.calls) {
      this.record(call, [call.diagnosis.tick(now - TICK_LAG_MS)]);
      if (now - call.lastSeen > IDLE_MS) {
        this.record(call, [this.ending(call)]);
        this.calls.delete(key);
      }
    }
  }

  /**
   * Reads what other nodes stored of the held calls' other participants (their streams now and then, their
   * new samples each tick), so what only the two ends of a call tell (one-way media, what a receiver gets
   * of what is sent) is judged when they reach different nodes. Each node raises issues on its own participants.
   */
  private async lookElsewhere(now: number): Promise<void> {
    const calls = [...this.calls.values()];
    if (now - this.rosterAt >= ROSTER_EVERY_MS) {
      this.rosterAt = now;
      const byCall = new Map(calls.map((c) => [c.callDbId, c]));
      for (const s of await streamsElsewhere(this.pool, calls)) {
        const call = byCall.get(s.callDbId);
        if (!call || call.local.has(s.participant)) continue;
        call.diagnosis.declareStreamElsewhere(s);
        if (s.left && !call.leftElsewhere.has(s.participant)) {
          call.leftElsewhere.add(s.participant);
          this.record(call, [
            call.diagnosis.addEvents([{ ts: now, participant: s.participant, connectionId: null, type: PARTICIPANT_LEFT, detail: null }]),
          ]);
        }
        if (s.left) call.elsewhere.delete(s.id);
        else if (!call.elsewhere.has(s.id)) call.elsewhere.set(s.id, { participant: s.participant, latest: now - LOOK_BACK_MS });
      }
    }
    const owners = new Map<number, LiveCall>();
    const latest = new Map<number, number>();
    for (const call of calls) {
      for (const [id, s] of call.elsewhere) {
        owners.set(id, call);
        latest.set(id, s.latest);
      }
    }
    const read = new Map<LiveCall, Sample[]>();
    for (const sample of await samplesElsewhere(this.pool, latest, now)) {
      const call = owners.get(sample.id)!;
      const stream = call.elsewhere.get(sample.id);
      if (!stream || sample.ts <= stream.latest) continue;
      stream.latest = sample.ts;
      const samples = read.get(call);
      if (samples) samples.push(sample);
      else read.set(call, [sample]);
    }
    for (const [call, samples] of read) this.record(call, [call.diagnosis.addStreamSamples(samples.sort((a, b) => a.ts - b.ts))]);
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
   * The call ended (all its participants left): what was still wrong ends with its last sample (what a
   * stopped diagnosis left open, with the call), and once its last windows are stored the call's score is
   * written on it (also for a call this thread did not hold: judged before a restart, its windows are stored).
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
      .then(() => endOpenIssues(this.pool, projectId, callId))
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
      if (call.watched)
        this.out.push(call.projectId, {
          callId: call.callId,
          issues: [],
          scores: scores.map((s) => ({
            streamId: s.streamId,
            participantId: s.participant,
            kind: s.kind,
            ts: s.ts,
            mos: s.mos,
            lowers: s.lowers,
            weight: s.weight,
            ...(s.delayMs === undefined ? {} : { delayMs: s.delayMs }),
          })),
        });
    }
    if (!raised.length && !changed.length) return;
    for (const issue of raised)
      call.ids.set(
        issue,
        call.writes.then(() => insertIssue(this.pool, call.projectId, call.callDbId, issue)),
      );
    call.writes = call.writes
      .then(async () => {
        // An issue raised and cleared by one batch is in both lists: it is pushed once, as it is now.
        const issues = new Map<number, CallIssue>();
        const causeOf = async (issue: Issue) => (issue.causedBy ? ((await call.ids.get(issue.causedBy)) ?? null) : null);
        for (const issue of raised) {
          const id = await call.ids.get(issue)!;
          const causeId = await causeOf(issue);
          // Raised with its cause known: the cause is stored by now (the raised are stored together).
          if (causeId !== null) await updateIssue(this.pool, id, issue, causeId);
          issues.set(id, issueToApi(id, call.callId, issue, causeId));
        }
        for (const issue of changed) {
          // An issue raised before this node took the call (a restart) has no id here: it is stored as raised now.
          let id = await call.ids.get(issue);
          if (id === undefined)
            call.ids.set(issue, Promise.resolve((id = await insertIssue(this.pool, call.projectId, call.callDbId, issue))));
          const causeId = await causeOf(issue);
          await updateIssue(this.pool, id, issue, causeId);
          issues.set(id, issueToApi(id, call.callId, issue, causeId));
        }
        if (call.watched) this.out.push(call.projectId, { callId: call.callId, issues: [...issues.values()], scores: [] });
      })
      .catch((err: unknown) => this.out.warn(err, 'diagnosis: could not store what it found', call.callId));
  }
}
