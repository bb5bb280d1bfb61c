import { type Detector, type Observation, type Subject } from './detector.js';
import { DETECTORS } from './detectors/index.js';
import { Hysteresis } from './hysteresis.js';
import { type ScorePoint, WindowScorer } from './scores/windows.js';
import type { ConnectionMeta, DiagnosisEvent, Issue, Sample, StreamMeta } from './types.js';
import { type CallView, ConnectionView, StreamView } from './view.js';

/** What one step of the diagnosis changed: issues raised, made worse, or cleared, and windows scored. */
export interface IssueChanges {
  raised: Issue[];
  updated: Issue[];
  cleared: Issue[];
  scores: ScorePoint[];
}

const keyOf = (type: string, s: Subject) => `${type}|${s.participant}|${s.streamId ?? ''}|${s.connectionId ?? ''}`;

/** A track kind a participant muted (from its track-muted events), so its silence is not a fault. */
const trackKind = (detail: string | null) => (/\b(audio|video)\b/.exec(detail ?? '')?.[1] ?? null);

/**
 * A call's diagnosis, fed incrementally: declare streams and connections, add samples and events as
 * they come, and `tick` for what needs the whole call. Every call returns what changed. It reads
 * nothing but what it is given, so the server runs it as batches commit and over stored samples alike.
 */
export class CallDiagnosis {
  private readonly streams = new Map<number, StreamView>();
  private readonly connections = new Map<number, ConnectionView>();
  private readonly events: DiagnosisEvent[] = [];
  private readonly states = new Map<string, Hysteresis>();
  private readonly open = new Map<string, Issue>();
  private readonly muted = new Set<string>();
  private readonly scorers = new Map<number, WindowScorer>();
  readonly closed: Issue[] = [];

  constructor(private readonly detectors: readonly Detector[] = DETECTORS) {}

  declareStream(meta: StreamMeta): void {
    if (!this.streams.has(meta.id)) this.streams.set(meta.id, new StreamView(meta));
  }

  declareConnection(meta: ConnectionMeta): void {
    const known = this.connections.get(meta.id);
    // A connection's candidate types are known once its pair is selected: the newer declaration wins.
    if (!known || meta.localCandidateType !== null) this.connections.set(meta.id, Object.assign(new ConnectionView(meta), { latest: known?.latest }));
  }

  /** Issues open now, and every issue that was raised and cleared. */
  issues(): Issue[] {
    return [...this.closed, ...this.open.values()].sort((a, b) => a.start - b.start);
  }

  /** Adds stream samples; a call's connection samples of the same time go first, for the audio scores' RTT. */
  addStreamSamples(samples: readonly Sample[]): IssueChanges {
    const changes = none();
    for (const sample of samples) {
      const stream = this.streams.get(sample.id);
      if (!stream) continue;
      const before = stream.latest;
      stream.add(sample);
      if (stream.latest === before) continue;
      if (stream.meta.direction === 'in') {
        let scorer = this.scorers.get(stream.meta.id);
        if (!scorer) this.scorers.set(stream.meta.id, (scorer = new WindowScorer(stream.meta)));
        const score = scorer.add(stream, this.connections.get(stream.meta.connectionId)?.value('rttMs') ?? null);
        if (score) changes.scores.push(score);
      }
      const silenced = stream.meta.direction === 'out' && this.muted.has(`${stream.meta.participant}|${stream.meta.kind}`);
      for (const d of this.detectors) {
        if (silenced && d.type === 'no-media') continue;
        const o = d.onStream?.(stream, sample);
        if (o) this.apply(d, o, changes);
      }
    }
    return changes;
  }

  addConnectionSamples(samples: readonly Sample[]): IssueChanges {
    const changes = none();
    for (const sample of samples) {
      const connection = this.connections.get(sample.id);
      if (!connection) continue;
      connection.latest = sample;
      for (const d of this.detectors) {
        const o = d.onConnection?.(connection, sample);
        if (o) this.apply(d, o, changes);
      }
    }
    return changes;
  }

  addEvents(events: readonly DiagnosisEvent[]): IssueChanges {
    const changes = none();
    for (const event of events) {
      this.events.push(event);
      const kind = trackKind(event.detail);
      if (kind && /^local\b/.test(event.detail ?? '')) {
        if (event.type === 'track-muted') this.muted.add(`${event.participant}|${kind}`);
        if (event.type === 'track-unmuted') this.muted.delete(`${event.participant}|${kind}`);
      }
      for (const d of this.detectors) {
        const found = d.onEvent?.(event, this.view());
        for (const o of found === null || found === undefined ? [] : Array.isArray(found) ? found : [found]) this.apply(d, o, changes);
      }
    }
    return changes;
  }

  /** Scores the windows still open (the call ended, or a past call was read to its end). */
  finish(): ScorePoint[] {
    return [...this.scorers.values()].flatMap((s) => s.finish() ?? []);
  }

  /** The call is over: every open issue ends with its last sample (`at`). */
  end(at: number): IssueChanges {
    const changes = none();
    for (const [key, issue] of this.open) {
      issue.end = Math.max(issue.start, at);
      this.open.delete(key);
      this.states.delete(key);
      this.closed.push(issue);
      changes.cleared.push(issue);
    }
    return changes;
  }

  /** The newest sample's time, of any stream or connection. */
  get lastSampleAt(): number | null {
    const times = [...this.streams.values(), ...this.connections.values()].flatMap((v) => (v.latest ? [v.latest.ts] : []));
    return times.length ? Math.max(...times) : null;
  }

  /** Looks across participants with everything up to `now` in. */
  tick(now: number): IssueChanges {
    const changes = none();
    for (const d of this.detectors) for (const o of d.onTick?.(this.view(), now) ?? []) this.apply(d, o, changes);
    return changes;
  }

  private view(): CallView {
    return { streams: this.streams, connections: this.connections, events: this.events };
  }

  private apply(d: Detector, o: Observation, changes: IssueChanges): void {
    const key = keyOf(d.type, o.subject);
    let state = this.states.get(key);
    if (!state) this.states.set(key, (state = new Hysteresis(d.raiseAfter, d.clearAfter)));
    const t = state.next(o.ts, o.level);
    if (!t) return;
    const [low, high] = d.levels ?? ['warning', 'critical'];
    if (t.kind === 'raise') {
      const issue: Issue = { type: d.type, category: d.category, severity: t.level === 2 ? high : low, ...o.subject, start: t.start, end: null, cause: o.cause, evidence: o.evidence, check: d.check };
      this.open.set(key, issue);
      changes.raised.push(issue);
    } else if (t.kind === 'worse') {
      const issue = this.open.get(key)!;
      Object.assign(issue, { severity: high, cause: o.cause, evidence: o.evidence });
      changes.updated.push(issue);
    } else {
      const issue = this.open.get(key)!;
      issue.end = t.end;
      this.open.delete(key);
      this.closed.push(issue);
      changes.cleared.push(issue);
    }
  }
}

const none = (): IssueChanges => ({ raised: [], updated: [], cleared: [], scores: [] });
