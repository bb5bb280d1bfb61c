import { APP_LIMIT } from '@rtcscope/metrics';
import { sfuPath } from './detectors/sfu-path.js';
import { THRESHOLDS } from './thresholds.js';
import type { Issue } from './types.js';
import { sendersOf, type StreamView, throughSfu } from './view.js';

/**
 * The causal model, in one place: which issue explains which others, and whose. A symptom with a cause
 * in the call is linked to the cause at the root of the chain (a receiver's freeze from its own downlink's
 * loss, which follows from its sender's congested uplink, is the uplink's), is shown under it and pages
 * nobody on its own.
 *
 * - `receivers`: what the participants receiving the cause's sent stream suffer;
 * - `own`: what the cause's own participant suffers on what it receives;
 * - `subscribers`: what everyone receiving through the SFU suffers;
 * - `publishers`: what everyone sending through the SFU suffers on the way to it;
 * - `layers`: the same trouble on the other simulcast layers of the cause's sent track (one uplink, one encoder);
 * - `sent`: the cause's own uplink trouble on what it sends (its queue's loss, loss on its other streams).
 */
type Scope = 'receivers' | 'own' | 'subscribers' | 'publishers' | 'layers' | 'sent';

/** What a receiver suffers when the media reaching it was damaged before it. */
const DAMAGED = ['downlink-loss', 'bursty-loss', 'video-freeze', 'received-quality', 'high-jitter', 'audio-concealment', 'no-media'];
/** What packets lost on the way in do to what is played: gaps concealed, frames frozen or thinned, a buffer waiting for repairs. */
const LOSS_EFFECTS = ['bursty-loss', 'video-freeze', 'received-quality', 'high-jitter', 'audio-concealment'];
/** What media sent or played late does, with nothing lost: a machine starved of CPU loses no packet. */
const LATE = ['video-freeze', 'received-quality', 'high-jitter', 'audio-concealment'];
/** A sender's track that stopped: its receivers get nothing, and what they showed stands still. */
const STOPPED = ['no-media', 'video-freeze', 'received-quality'];
/** What a sender's app held back (a rate cap, a smaller picture): its receivers see less of it. */
const HELD_BACK = ['received-quality', 'video-freeze'];

const MODEL: Readonly<Record<string, readonly { scope: Scope; explains: ReadonlySet<string> }[]>> = {
  'uplink-congestion': [
    { scope: 'receivers', explains: new Set(DAMAGED) },
    { scope: 'layers', explains: new Set(['uplink-congestion']) },
    // A queue that overflows loses what it holds: the far end's reports of it are the congestion's.
    { scope: 'sent', explains: new Set(['uplink-loss']) },
  ],
  // Loss on a sender's way out damages what everyone receives of it; a sender backing off from it is its doing.
  'uplink-loss': [
    { scope: 'receivers', explains: new Set(DAMAGED) },
    { scope: 'sent', explains: new Set(['uplink-loss', 'uplink-congestion']) },
  ],
  'cpu-limitation': [
    { scope: 'receivers', explains: new Set(LATE) },
    { scope: 'own', explains: new Set(LATE) },
    { scope: 'layers', explains: new Set(['cpu-limitation']) },
  ],
  'no-media': [{ scope: 'receivers', explains: new Set(STOPPED) }],
  [APP_LIMIT]: [{ scope: 'receivers', explains: new Set(HELD_BACK) }],
  // A downlink that loses packets loses them on every stream it carries: one problem, told once.
  'downlink-loss': [{ scope: 'own', explains: new Set([...LOSS_EFFECTS, 'downlink-loss']) }],
  // Packets that come late on the way in: frames and audio the receiver plays late or makes up.
  'high-jitter': [{ scope: 'own', explains: new Set(LATE) }],
  [sfuPath.type]: [
    { scope: 'subscribers', explains: new Set(DAMAGED) },
    { scope: 'publishers', explains: new Set(['uplink-loss']) },
  ],
};

/** Which of two causes that explain the same symptom is named: the one further from the person who suffers it. */
const RANK: Readonly<Record<Scope, number>> = { layers: 0, sent: 0, receivers: 0, subscribers: 1, publishers: 1, own: 2 };

/**
 * A sender backing off because the far end reported loss in the last seconds while the round trip stays
 * near its lowest: loss on the path that no queue of the sender's made (random loss leaves the RTT alone;
 * an overflowing uplink raises it, THRESHOLDS.congestion). The receivers' loss is not its doing: it is a
 * reaction to it. Only loss over 10 % makes GCC cut its rate (Jansen et al. 2017, eq. 6: it holds between
 * 2 and 10 %); a sender cut under less was cut by its delay controller, a queue on its own path (a capped
 * shared screen: 6 % lost at a drained queue's flat RTT, its estimate down to the cap). Loss is taken over the last 10 s: under 20 % loss a
 * sender's encoder stalled, sending nothing to lose, and its last 3 s said 0 %.
 */
function backingOffFromLoss(i: Issue): boolean {
  if (i.type !== 'uplink-congestion') return false;
  const { remoteLossPct, recentRemoteLossPct, rttMs, lowestRttMs } = i.evidence;
  if (typeof rttMs !== 'number' || typeof lowestRttMs !== 'number') return false;
  const lossPct = Math.max(
    typeof remoteLossPct === 'number' ? remoteLossPct : 0,
    typeof recentRemoteLossPct === 'number' ? recentRemoteLossPct : 0,
  );
  return lossPct >= THRESHOLDS.lossPct[1] && rttMs - lowestRttMs < THRESHOLDS.congestion.queueMs;
}

/**
 * An overflowing or standing queue told from the far end's reports alone (the browser not saying bandwidth) that no receiver
 * of the stream counts itself: its reports said 50–89 % lost while the receiver's own count said none (lab,
 * jitter on the receiver's downlink). Its receivers' symptoms are their own path's, not this sender's doing.
 */
function unconfirmedOverflow(i: Issue, streams: ReadonlyMap<number, StreamView>): boolean {
  if (i.type !== 'uplink-congestion' || (i.evidence.basis !== 'overflow' && i.evidence.basis !== 'queue')) return false;
  const sent = i.streamId === null ? undefined : streams.get(i.streamId);
  if (!sent) return false;
  for (const s of streams.values()) {
    const receives = s.meta.direction === 'in' && sendersOf(streams.values(), s).includes(sent);
    if (receives && (s.peak('lossPct', THRESHOLDS.congestion.recentLossWindowS) ?? 0) >= THRESHOLDS.lossPct[0]) return false;
  }
  return true;
}

/**
 * Loss that every participant receiving the sender suffers on what it gets of the sender, and on nothing
 * it gets of anyone else: two or more receivers through an SFU, so the one path they share with it is
 * the sender's uplink, whatever its RTT says (lab, LiveKit: a 300-kbit/s cap's short queue dropped 6–8 %
 * of the publisher's audio at both subscribers while its RTT to the SFU stayed near its lowest).
 */
function lostOnlyFromSender(i: Issue, streams: ReadonlyMap<number, StreamView>): boolean {
  const lossy = (s: StreamView) => (s.peak('lossPct', THRESHOLDS.congestion.recentLossWindowS) ?? 0) >= THRESHOLDS.lossPct[0];
  const byReceiver = new Map<string, { fromSender: boolean; fromOthers: boolean }>();
  for (const s of streams.values()) {
    if (s.meta.direction !== 'in' || s.meta.participant === i.participant) continue;
    const from = sendersOf(streams.values(), s)[0]?.meta.participant;
    if (!from) continue;
    const r = byReceiver.get(s.meta.participant) ?? { fromSender: false, fromOthers: false };
    if (from === i.participant) r.fromSender ||= lossy(s);
    else r.fromOthers ||= lossy(s);
    byReceiver.set(s.meta.participant, r);
  }
  const receivers = [...byReceiver.values()];
  return receivers.length >= 2 && receivers.every((r) => r.fromSender && !r.fromOthers);
}

/** Whether an issue can explain others at all: a sender's cause on what it sends, a receiver's loss on what it receives, the SFU's side. */
function canCause(i: Issue, streams: ReadonlyMap<number, StreamView>): boolean {
  if (!(i.type in MODEL)) return false;
  if (i.type === sfuPath.type) return true;
  if (i.type === 'downlink-loss' || i.type === 'high-jitter') return i.direction === 'in';
  if (i.direction !== 'out') return false;
  return (!backingOffFromLoss(i) && !unconfirmedOverflow(i, streams)) || (i.type === 'uplink-congestion' && lostOnlyFromSender(i, streams));
}

/** The participant whose sent stream an issue's received stream is (`sendersOf`); null for other issues. */
function senderOf(streams: ReadonlyMap<number, StreamView>, issue: Pick<Issue, 'direction' | 'streamId'>): string | null {
  const receiver = issue.direction === 'in' && issue.streamId !== null ? streams.get(issue.streamId) : undefined;
  return receiver ? (sendersOf(streams.values(), receiver)[0]?.meta.participant ?? null) : null;
}

/** Whether an issue is about a stream received through an SFU. */
function viaSfu(streams: ReadonlyMap<number, StreamView>, issue: Issue): boolean {
  const receiver = issue.direction === 'in' && issue.streamId !== null ? streams.get(issue.streamId) : undefined;
  return receiver !== undefined && throughSfu(streams.values(), receiver);
}

/** Whether a sent stream's issue is about media someone receives through an SFU. */
function sentThroughSfu(streams: ReadonlyMap<number, StreamView>, issue: Issue): boolean {
  const sent = issue.direction === 'out' && issue.streamId !== null ? streams.get(issue.streamId) : undefined;
  if (!sent?.meta.trackId) return false;
  // An SFU's copy keeps the track and takes an SSRC of its own: only such streams are asked the whole rule.
  const { trackId, ssrc, kind } = sent.meta;
  for (const s of streams.values())
    if (
      s.meta.direction === 'in' &&
      s.meta.kind === kind &&
      s.meta.trackId === trackId &&
      s.meta.ssrc !== ssrc &&
      throughSfu(streams.values(), s) &&
      sendersOf(streams.values(), s).includes(sent)
    )
      return true;
  return false;
}

/**
 * Whether `cause` explains `symptom` as trouble on the same sender's way out: a queue's loss under its
 * congestion (a queue of its own: `canCause`), loss on its other streams under the first, and a sender
 * that only backs off from the loss (its congestion no queue of its own) under that loss.
 */
function sameUplink(cause: Issue, symptom: Issue, streams: ReadonlyMap<number, StreamView>): boolean {
  if (symptom.direction !== 'out' || symptom.participant !== cause.participant) return false;
  if (cause.type === symptom.type && cause.streamId === symptom.streamId) return false;
  if (cause.type === 'uplink-congestion') return canCause(cause, streams);
  return symptom.type !== 'uplink-congestion' || !canCause(symptom, streams);
}

/**
 * A sender's congestion that does not explain what one receiver suffers from jitter, the receiver losing
 * next to nothing of the sender's media (a queue of the sender's that fills overflows, and its receivers
 * count the loss): the receiver's jitter itself, and what followed the jitter where it began a second or
 * more before the congestion was told — the sender reacting to that receiver's path (GCC backs off from
 * feedback that comes late). Lab: Chromium backing off 4 s after the jitter on its Firefox receiver's
 * downlink began, a shared screen held to an estimate its receiver's jitter had cut, and a 720p10 sender
 * saying bandwidth 3 s before its receiver's jitter was raised, each took the receiver's jitter as its own doing.
 */
function reactsToJitter(cause: Issue, symptom: Issue, issues: readonly Issue[], streams: ReadonlyMap<number, StreamView>): boolean {
  if (cause.type !== 'uplink-congestion') return false;
  const receiver = symptom.participant;
  for (const s of streams.values()) {
    if (s.meta.participant !== receiver || s.meta.direction !== 'in') continue;
    const lost = s.peak('lossPct', THRESHOLDS.congestion.recentLossWindowS) ?? 0;
    if (lost >= THRESHOLDS.lossPct[0] && senderOf(streams, { direction: 'in', streamId: s.meta.id }) === cause.participant) return false;
  }
  if (symptom.type === 'high-jitter') return true;
  return issues.some(
    (i) =>
      i.participant === receiver &&
      i.type === 'high-jitter' &&
      i.start <= cause.start - 1000 &&
      (i.end === null || i.end >= cause.start) &&
      senderOf(streams, i) === cause.participant,
  );
}

/** Whether two issues are on different simulcast layers of one sent track (streams of the same track id). */
function otherLayer(cause: Issue, symptom: Issue, streams: ReadonlyMap<number, StreamView>): boolean {
  if (symptom.direction !== 'out' || cause.participant !== symptom.participant || cause.streamId === symptom.streamId) return false;
  const [a, b] = [cause.streamId, symptom.streamId].map((id) => (id === null ? undefined : streams.get(id)?.meta.trackId));
  return !!a && a === b;
}

/** How `cause` explains `symptom`, by the scope it reaches it through; null when it does not. */
function explanation(cause: Issue, symptom: Issue, streams: ReadonlyMap<number, StreamView>, issues: readonly Issue[]): Scope | null {
  if (cause === symptom || !(cause.type in MODEL)) return null;
  const reachesOthers = canCause(cause, streams);
  for (const { scope, explains } of MODEL[cause.type]!) {
    if (!explains.has(symptom.type)) continue;
    // One encoder's layers on one uplink are one story, also where that story explains nothing of anyone
    // else's (a sender backing off from loss on its path, a queue no receiver confirms: lab, LiveKit, a
    // capped publisher's two layers raised in the same second, each a cause of its own).
    if (scope === 'layers') {
      if (otherLayer(cause, symptom, streams)) return scope;
      continue;
    }
    if (scope === 'sent') {
      if (sameUplink(cause, symptom, streams)) return scope;
      continue;
    }
    if (scope === 'publishers') {
      if (sentThroughSfu(streams, symptom)) return scope;
      continue;
    }
    if (!reachesOthers || symptom.direction !== 'in') continue;
    const reaches =
      scope === 'receivers'
        ? senderOf(streams, symptom) === cause.participant && !reactsToJitter(cause, symptom, issues, streams)
        : scope === 'own'
          ? symptom.participant === cause.participant && (cause.type !== symptom.type || cause.streamId !== symptom.streamId)
          : viaSfu(streams, symptom);
    if (reaches) return scope;
  }
  return null;
}

/** The cause at the root of an issue's chain (itself when it follows from nothing). */
function rootOf(issue: Issue): Issue {
  const seen = new Set<Issue>();
  let at = issue;
  while (at.causedBy && !seen.has(at)) {
    seen.add(at);
    at = at.causedBy;
  }
  return at;
}

function link(symptom: Issue, cause: Issue): void {
  const root = rootOf(cause);
  symptom.causedBy = root;
  symptom.check =
    root.participant === symptom.participant
      ? `It follows from ${root.participant}'s own ${root.type}: look there first.`
      : `It follows from ${root.participant}'s ${root.type}: look there. ${symptom.participant}'s own network and device are not the cause.`;
}

/** Whether `cause` would be named for `symptom` over the cause it has: unlinked, or linked to one of lower rank that this does not itself follow from. */
function takesOver(
  cause: Issue,
  scope: Scope,
  symptom: Issue,
  streams: ReadonlyMap<number, StreamView>,
  issues: readonly Issue[],
): boolean {
  const current = symptom.causedBy;
  if (!current) return true;
  if (rootOf(cause) === current || rootOf(current) === rootOf(cause)) return false;
  const held = explanation(current, symptom, streams, issues);
  // A sender's CPU named before its uplink was known: the network explains what its receivers lost.
  if (held === 'receivers' && current.participant === cause.participant)
    return cause.type === 'uplink-congestion' && current.type === 'cpu-limitation';
  if (held === null) return true;
  // A symptom that began while its cause went on keeps it from a cause raised after it began: that one's
  // lead (`causeLeadS`) is for a sender's trouble the far end shows first, not for a symptom that outlasts
  // its cause into the next problem (lab, Janus: a subscriber's picture poor from its downlink's loss, the
  // issue kept open over the 5 s between that loss and its publisher's cap, taken by the cap 13 s after it began).
  const ongoingAtStart = current.start <= symptom.start && (current.end === null || current.end >= symptom.start);
  if (ongoingAtStart && cause.start > symptom.start) return false;
  return RANK[scope] < RANK[held];
}

/**
 * Links what a newly raised (or reopened) issue explains or is explained by, and returns the issues
 * other than `raised` whose cause changed. As a cause, it takes the symptoms it explains that began from
 * `causeLeadS` before it (and those of its own symptoms' chains); as a symptom, it takes the best-ranked
 * cause that explains it, open or closed within `causeLagS`, at that cause's root.
 */
export function linkCauses(raised: Issue, issues: Iterable<Issue>, streams: ReadonlyMap<number, StreamView>): Issue[] {
  const all = [...issues];
  const changed = new Set<Issue>();
  if (!raised.causedBy) {
    const since = raised.start - THRESHOLDS.causeLagS * 1000;
    // Nor a cause raised more than `causeLeadS` after the symptom began: a reopened issue keeps its start,
    // and is not the doing of trouble that came long after it (lab, Janus: a subscriber's downlink loss,
    // reopened when its publisher's uplink was capped 26 s later, taken by that cap with all under it).
    const until = raised.start + THRESHOLDS.causeLeadS * 1000;
    const candidates = all.filter((i) => (i.end === null || i.end >= since) && i.start <= until && i !== raised && rootOf(i) !== raised);
    const best = candidates
      .map((cause) => ({ cause, scope: explanation(cause, raised, streams, all) }))
      .filter((c): c is { cause: Issue; scope: Scope } => c.scope !== null)
      .sort((a, b) => RANK[a.scope] - RANK[b.scope] || a.cause.start - b.cause.start)[0];
    if (best) link(raised, best.cause);
  }
  if (raised.type in MODEL) {
    const from = raised.start - THRESHOLDS.causeLeadS * 1000;
    for (const i of all) {
      if (i === raised || (i.end !== null && i.end < from) || i.start < from || rootOf(raised) === i) continue;
      const scope = explanation(raised, i, streams, all);
      if (scope === null || !takesOver(raised, scope, i, streams, all)) continue;
      link(i, raised);
      changed.add(i);
    }
  }
  // What followed from an issue that now follows from another is the other's.
  const roots = new Set([raised, ...changed]);
  for (const i of all) {
    if (i.causedBy && roots.has(i.causedBy) && i.causedBy.causedBy) {
      link(i, i.causedBy);
      changed.add(i);
    }
  }
  changed.delete(raised);
  return [...changed];
}
