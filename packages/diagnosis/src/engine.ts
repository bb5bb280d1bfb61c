import { dataOnly, parseNegotiated, parseSenderSettings, type SenderSettings } from '@rtcscope/protocol/fields';
import { type AppLimit, appLimitOf } from './app-limits.js';
import { linkCauses } from './causes.js';
import { closedByPage, farEndHungUp, isSilent, sameMomentWithin } from './life.js';
import type { Detail, Detector, Observation, Subject } from './detector.js';
import { DETECTORS } from './detectors/index.js';
import { Hysteresis, type Slot, type Transition } from './hysteresis.js';
import { THRESHOLDS } from './thresholds.js';
import { type ScorePoint, WindowScorer } from './scores/windows.js';
import { type ConnectionMeta, type DiagnosisEvent, type Issue, PARTICIPANT_LEFT, type Sample, type StreamMeta } from './types.js';
import { type CallView, ConnectionView, Pairing, StreamView, stoppedByChoice } from './view.js';

/** What one step of the diagnosis changed: issues raised, made worse, or cleared, and windows scored. */
export interface IssueChanges {
  raised: Issue[];
  updated: Issue[];
  cleared: Issue[];
  scores: ScorePoint[];
}

/** A subject within one detector: its stream (a number: no string is built for the commonest case), connection or participant. */
const subjectKey = (s: Subject): string | number => s.streamId ?? (s.connectionId !== null ? `c${s.connectionId}` : `p${s.participant}`);

/** A stream's newest sample carried no media (`isSilent`). */
const silent = (stream: StreamView) => isSilent(stream.value('kbps'), stream.value('packets'));
const trackKind = (detail: string | null) => /\b(audio|video)\b/.exec(detail ?? '')?.[1] ?? null;

/**
 * A call's diagnosis, fed incrementally: declare streams and connections, add samples and events as
 * they come, and `tick` for what needs the whole call. Every call returns what changed. It reads
 * nothing but what it is given, so the server runs it as batches commit and over stored samples alike.
 */
export class CallDiagnosis {
  private readonly streams = new Map<number, StreamView>();
  /** Per participant, the limits its app set on each of its tracks' senders (sender-encodings events), by track id. */
  private readonly appLimits = new Map<string, Map<string, AppLimit | null>>();
  /** Each participant's streams: a silent sample asks of its participant's others (pausedAlone) on the hot path. */
  private readonly byParticipant = new Map<string, StreamView[]>();
  private readonly connections = new Map<number, ConnectionView>();
  private readonly events: DiagnosisEvent[] = [];
  private readonly slots = new Map<Detector, Map<string | number, Slot>>();
  /** Per participant, the kinds of its own tracks it has muted. */
  private readonly muted = new Map<string, Set<string>>();
  private readonly scorers = new Map<number, WindowScorer>();
  private readonly left = new Set<string>();
  private readonly closedConnections = new Set<number>();
  private readonly hungUp = new Set<number>();
  private readonly dataOnly = new Set<number>();
  /** Participants whose streams another diagnosis judges (declareStreamElsewhere). */
  private readonly elsewhere = new Set<string>();
  readonly closed: Issue[] = [];
  private readonly pairing = new Pairing(this.streams);
  /** What the detectors see: the engine's own collections, read as they are when asked. */
  private readonly callView: CallView = {
    streams: this.streams,
    connections: this.connections,
    events: this.events,
    left: this.left,
    closed: this.closedConnections,
    hungUp: this.hungUp,
    muted: this.muted,
    pairing: this.pairing,
    dataOnly: this.dataOnly,
  };

  constructor(private readonly detectors: readonly Detector[] = DETECTORS) {}

  declareStream(meta: StreamMeta): void {
    const known = this.streams.get(meta.id);
    const same =
      known?.meta.codec === meta.codec &&
      (known.meta.contentType ?? null) === (meta.contentType ?? null) &&
      (known.meta.trackId ?? null) === (meta.trackId ?? null);
    if (known?.judged && same) return;
    const view = known ?? new StreamView(meta);
    // Declared again as what it now is (its codec changed, the browser said late that it is a shared
    // screen, or the app named its track as the SFU knows it).
    view.meta = meta;
    view.judged = true;
    view.judges = this.detectors
      .filter((d) => d.stream?.applies(meta))
      .map((detector) => ({ detector, slot: this.slotOf(detector, view.subject) }));
    this.keep(view);
    this.pairing.changed();
    this.elsewhere.delete(meta.participant);
  }

  /**
   * A stream another diagnosis judges (its participant's batches go to another server node): looked at
   * only across participants, neither judged nor scored here, and nothing is raised on its participant
   * here. Declared here after all (its participant's batches come here), it is judged from then on.
   */
  declareStreamElsewhere(meta: StreamMeta): void {
    const known = this.streams.get(meta.id);
    if (known) {
      // Read again as the other node stored it (its track named since, say); judged here, it is ours.
      if (!known.judged) known.meta = meta;
      this.pairing.changed();
      return;
    }
    this.keep(new StreamView(meta));
    this.pairing.changed();
    if (!this.byParticipant.get(meta.participant)?.some((s) => s.judged)) this.elsewhere.add(meta.participant);
  }

  /** A sender's settings as its SDK said them: the limits its app set, for the streams that carry its track. */
  private noteAppLimit(participant: string, settings: SenderSettings | null, ts: number): void {
    if (!settings) return;
    const own = this.appLimits.get(participant) ?? new Map<string, AppLimit | null>();
    own.set(settings.trackId, appLimitOf(settings, ts));
    this.appLimits.set(participant, own);
    for (const stream of this.byParticipant.get(participant) ?? []) this.applyAppLimit(stream);
  }

  private applyAppLimit(stream: StreamView): void {
    const { participant, direction, trackId } = stream.meta;
    if (direction === 'out' && trackId) stream.appLimit = this.appLimits.get(participant)?.get(trackId) ?? null;
  }

  /** Keeps a stream, new or declared again, by id and by its participant. */
  private keep(view: StreamView): void {
    this.applyAppLimit(view);
    if (this.streams.has(view.meta.id)) return;
    this.streams.set(view.meta.id, view);
    const own = this.byParticipant.get(view.meta.participant);
    if (own) own.push(view);
    else this.byParticipant.set(view.meta.participant, [view]);
    const { direction, trackId } = view.meta;
    if (direction !== 'out' || !trackId) return;
    const layers = (own ?? []).filter((s) => s !== view && s.meta.direction === 'out' && s.meta.trackId === trackId);
    for (const l of layers) l.layers = [...l.layers, view];
    view.layers = layers;
  }

  declareConnection(meta: ConnectionMeta): void {
    const known = this.connections.get(meta.id);
    // A connection's candidate types are known once its pair is selected: the newer declaration wins.
    if (!known || meta.localCandidateType !== null)
      this.connections.set(meta.id, Object.assign(new ConnectionView(meta), { latest: known?.latest, interval: known?.interval ?? null }));
  }

  /** Issues open now, and every issue that was raised and cleared. */
  issues(): Issue[] {
    return [...this.closed, ...this.openIssues()].sort(
      (a, b) => a.start - b.start || a.type.localeCompare(b.type) || a.participant.localeCompare(b.participant),
    );
  }

  private *openIssues(): Generator<Issue> {
    for (const slots of this.slots.values()) for (const slot of slots.values()) if (slot.open) yield slot.open;
  }

  /** Adds stream samples; a call's connection samples of the same time go first, for the audio scores' RTT. */
  addStreamSamples(samples: readonly Sample[]): IssueChanges {
    const changes = none();
    for (const given of samples) {
      const stream = this.streams.get(given.id);
      if (!stream) continue;
      // Samples after a goodbye: the participant came back.
      this.left.delete(stream.meta.participant);
      const before = stream.latest;
      stream.add(given);
      if (stream.latest === before) continue;
      // As the stream keeps it (StreamView.add: a resumed stream's gap is not loss).
      const sample = stream.latest!;
      // A stream that never carried media is no one's experience and no fault: neither scored nor judged.
      if (stream.neverCarried) continue;
      // What the far side stopped by choice (left, hung up, its camera off) or the SFU stopped forwarding
      // is neither judged nor scored: the app shows that, not a broken picture.
      const stopped = silent(stream) && (this.pausedAlone(stream) || this.senderStopped(stream));
      if (stream.meta.direction === 'in' && stream.judged) {
        let scorer = this.scorers.get(stream.meta.id);
        if (!scorer) this.scorers.set(stream.meta.id, (scorer = new WindowScorer(stream.meta)));
        if (stopped) scorer.dropLast(sample.ts);
        // Its first sample since it began carrying media covers the moment it began: the start, not what was seen.
        else if (stream.age(sample) > 0) {
          const score = scorer.add(stream, this.connections.get(stream.meta.connectionId)?.value('rttMs') ?? null);
          if (score) changes.scores.push(score);
        }
      }
      // What a sender sends of a track it muted (silence, a disabled camera's black frames, or nothing) is
      // its choice: its rate, frame rate and the browser's word on them are nobody's fault meanwhile.
      const silenced = stream.meta.direction === 'out' && this.muted.get(stream.meta.participant)?.has(stream.meta.kind) === true;
      const connection = this.connections.get(stream.meta.connectionId);
      for (const { detector, slot } of stream.judges) {
        if (silenced && detector.type === 'no-media') continue;
        const level = stopped || silenced ? null : detector.stream!.level(stream, sample, connection, this.callView);
        const confirmed = !!level && detector.stream!.confirmed?.(stream, sample) === true;
        const t = slot.state.next(sample.ts, level, confirmed ? THRESHOLDS.raiseAfter : undefined, stream.interval);
        if (t)
          this.transition(
            detector,
            slot,
            stream.subject,
            t,
            () => detector.stream!.detail(stream, sample, connection, this.callView),
            changes,
          );
      }
    }
    return changes;
  }

  addConnectionSamples(samples: readonly Sample[]): IssueChanges {
    const changes = none();
    for (const sample of samples) {
      const connection = this.connections.get(sample.id);
      if (!connection) continue;
      const before = connection.latest;
      connection.add(sample);
      if (connection.latest === before) continue;
      for (const d of this.detectors) {
        const o = d.onConnection?.(connection, sample, this.callView);
        if (o) this.apply(d, o, changes, connection.interval);
      }
    }
    return changes;
  }

  addEvents(events: readonly DiagnosisEvent[]): IssueChanges {
    const changes = none();
    for (const event of events) {
      this.events.push(event);
      if (event.type === PARTICIPANT_LEFT) this.left.add(event.participant);
      if (event.connectionId !== null && closedByPage(event.type, event.detail)) this.closedConnections.add(event.connectionId);
      if (event.connectionId !== null && farEndHungUp(event.type, event.detail)) this.hungUp.add(event.connectionId);
      if (event.type === 'sender-encodings') this.noteAppLimit(event.participant, parseSenderSettings(event.detail), event.ts);
      if (event.type === 'media-negotiated' && event.connectionId !== null) this.noteNegotiated(event.connectionId, event.detail);
      const kind = trackKind(event.detail);
      if (kind && /^local\b/.test(event.detail ?? '') && (event.type === 'track-ended' || event.type === 'track-added'))
        this.trackStopped(event.participant, kind, event.detail!.split(' ')[2] ?? null, event.type === 'track-ended');
      if (kind && /^local\b/.test(event.detail ?? '')) {
        const kinds = this.muted.get(event.participant) ?? new Set<string>();
        if (event.type === 'track-muted') kinds.add(kind);
        if (event.type === 'track-unmuted' && kinds.delete(kind)) this.resumed(event.participant, kind, event.ts);
        this.muted.set(event.participant, kinds);
      }
      for (const d of this.detectors) {
        const found = d.onEvent?.(event, this.callView);
        for (const o of found === null || found === undefined ? [] : Array.isArray(found) ? found : [found]) this.apply(d, o, changes);
      }
    }
    return changes;
  }

  /**
   * A local track its app stopped (ended) is gone from what the participant sends, whatever its sender goes
   * on sending (Firefox sends a frame a second of it); a new local track of the kind puts the sender back.
   */
  private trackStopped(participant: string, kind: string, trackId: string | null, stopped: boolean): void {
    for (const stream of this.byParticipant.get(participant) ?? []) {
      const { direction, kind: k, trackId: own } = stream.meta;
      if (direction === 'out' && k === kind && (!stopped || !own || own === trackId)) stream.trackStopped = stopped;
    }
  }

  /** What a connection negotiated: one with no audio or video (a data channel alone) is not the call's media. */
  private noteNegotiated(connectionId: number, detail: string | null): void {
    const sections = parseNegotiated(detail);
    if (!sections) return;
    if (dataOnly(sections)) this.dataOnly.add(connectionId);
    else this.dataOnly.delete(connectionId);
  }

  /**
   * The participant's track of `kind` is on again: what it sends begins again then, as at its start (the
   * encoder starts again from a picture it had not sent, and its rate from what the muted seconds let the
   * estimate fall to: a layer back on through LiveKit sent 0–2 fps at 200–400 kbit/s for 4 s).
   */
  private resumed(participant: string, kind: string, ts: number): void {
    for (const stream of this.byParticipant.get(participant) ?? [])
      if (stream.meta.direction === 'out' && stream.meta.kind === kind) stream.restart(ts);
  }

  /** Scores the windows still open (the call ended, or a past call was read to its end). */
  finish(): ScorePoint[] {
    return [...this.scorers.values()].flatMap((s) => s.finish() ?? []);
  }

  /** The call is over: every open issue ends with its last sample (`at`). */
  end(at: number): IssueChanges {
    const changes = none();
    for (const [d, slots] of this.slots) {
      for (const slot of slots.values()) {
        if (!slot.open) continue;
        slot.open.end = Math.max(slot.open.start, at);
        this.closed.push(slot.open);
        changes.cleared.push(slot.open);
        // Should the call go on after all, its conditions are judged afresh.
        slot.open = null;
        slot.last = null;
        slot.state = new Hysteresis(d.raiseAfter, d.clearAfter);
      }
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
    for (const d of this.detectors) for (const o of d.onTick?.(this.callView, now) ?? []) this.apply(d, o, changes);
    return changes;
  }

  /**
   * A received stream whose sender left, closed its connection or muted the track, or whose connection's
   * far end hung up (known from the receiver's own stats, monitored far side or not): it gets nothing by
   * the far side's choice (asked only of a silent sample).
   */
  private senderStopped(stream: StreamView): boolean {
    if (stream.meta.direction !== 'in') return false;
    return (
      this.hungUp.has(stream.meta.connectionId) || this.pairing.forwardedTo(stream).some((sender) => stoppedByChoice(this.callView, sender))
    );
  }

  /**
   * A stream silent while its participant still carries media elsewhere: not an outage, which silences
   * everything a participant receives. Received: paused by its sender or the SFU (a muted or disabled
   * track, last-N, a layer switched off) or left behind on a connection the call moved from (P2P to the
   * SFU and back), while anything else reaches the participant. Sent: left behind on such a connection,
   * while the participant sends the same kind on another, or a simulcast layer its browser or the SFU
   * switched off (dynacast, a layer no subscriber is sent; a top layer the uplink no longer carries) while
   * another layer of its track goes on (a camera that stops sending everywhere is the sender's no-media).
   * Asked only of a silent sample.
   */
  private pausedAlone(stream: StreamView): boolean {
    const { participant, direction, kind, connectionId, trackId } = stream.meta;
    const at = stream.latest!.ts;
    for (const other of this.byParticipant.get(participant) ?? []) {
      const m = other.meta;
      if (other === stream || m.direction !== direction || !other.latest) continue;
      const layer = !!trackId && m.trackId === trackId;
      if (direction === 'out' && (m.kind !== kind || (m.connectionId === connectionId && !layer))) continue;
      if (Math.abs(other.latest.ts - at) <= sameMomentWithin(stream.interval, other.interval) && !silent(other)) return true;
    }
    return false;
  }

  /** Links a raised issue with its cause or its consequences elsewhere in the call; returns the others it linked. */
  private linkCauses(raised: Issue): Issue[] {
    return linkCauses(raised, this.issues(), this.streams);
  }

  private slotOf(d: Detector, subject: Subject): Slot {
    let slots = this.slots.get(d);
    if (!slots) this.slots.set(d, (slots = new Map()));
    const key = subjectKey(subject);
    let slot = slots.get(key);
    if (!slot) slots.set(key, (slot = { state: new Hysteresis(d.raiseAfter, d.clearAfter), open: null, last: null }));
    return slot;
  }

  /** `spanMs`: the time the observation's sample covers (a connection's sampling interval); events and looks across the call are of a moment. */
  private apply(d: Detector, o: Observation, changes: IssueChanges, spanMs: number | null = null): void {
    if (this.elsewhere.has(o.subject.participant)) return;
    const slot = this.slotOf(d, o.subject);
    const t = slot.state.next(o.ts, o.level, o.confirmed ? THRESHOLDS.raiseAfter : undefined, spanMs);
    if (t) this.transition(d, slot, o.subject, t, o.detail, changes);
  }

  private transition(
    d: Detector,
    slot: Slot,
    subject: Subject,
    t: NonNullable<Transition>,
    detail: () => Detail,
    changes: IssueChanges,
  ): void {
    const [low, high] = d.levels ?? ['warning', 'critical'];
    if (t.kind === 'raise' && slot.last && t.start - slot.last.end! <= THRESHOLDS.reopenWithinS * 1000) {
      const issue = slot.last;
      this.closed.splice(this.closed.indexOf(issue), 1);
      issue.end = null;
      if (t.level === 2 && issue.severity !== high) Object.assign(issue, { severity: high, ...detail() });
      slot.open = issue;
      changes.updated.push(issue, ...this.linkCauses(issue));
    } else if (t.kind === 'raise') {
      const { cause, evidence } = detail();
      slot.open = {
        type: d.type,
        category: d.category,
        severity: t.level === 2 ? high : low,
        ...subject,
        start: t.start,
        end: null,
        cause,
        evidence,
        check: d.check,
        causedBy: null,
      };
      changes.updated.push(...this.linkCauses(slot.open));
      changes.raised.push(slot.open);
    } else if (t.kind === 'worse') {
      Object.assign(slot.open!, { severity: high, ...detail() });
      changes.updated.push(slot.open!);
    } else {
      const issue = slot.open!;
      issue.end = t.end;
      slot.open = null;
      slot.last = issue;
      this.closed.push(issue);
      changes.cleared.push(issue);
    }
  }
}

const none = (): IssueChanges => ({ raised: [], updated: [], cleared: [], scores: [] });
