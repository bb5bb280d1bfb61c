import { sfuPath } from './detectors/sfu-path.js';
import { THRESHOLDS } from './thresholds.js';
import type { Issue } from './types.js';
import { sendersOf, type StreamView, throughSfu } from './view.js';

/** What a receiver suffers when the media reaching it was damaged before it: loss, bursts, freezes, lower quality, jitter, concealment. */
const CONSEQUENCES: ReadonlySet<string> = new Set([
  'downlink-loss',
  'bursty-loss',
  'video-freeze',
  'received-quality',
  'high-jitter',
  'audio-concealment',
  'no-media',
]);

/** The SFU's side: what every subscriber receives through it suffers. */
const SFU_CAUSE = sfuPath.type;

/** A sender's issues (on what it sends) that damage what every receiver of it gets: its track stopped is theirs stopped. */
const SENDER_CAUSES: ReadonlySet<string> = new Set(['uplink-congestion', 'cpu-limitation', 'no-media']);

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

const isCause = (i: Issue, streams: ReadonlyMap<number, StreamView>) =>
  SENDER_CAUSES.has(i.type) && i.direction === 'out' && !backingOffFromLoss(i) && !unconfirmedOverflow(i, streams);

/** The participant whose sent stream an issue's received stream is (`sendersOf`); null for other issues. */
function senderOf(streams: ReadonlyMap<number, StreamView>, issue: Issue): string | null {
  const receiver = issue.direction === 'in' && issue.streamId !== null ? streams.get(issue.streamId) : undefined;
  return receiver ? (sendersOf(streams.values(), receiver)[0]?.meta.participant ?? null) : null;
}

/** Whether an issue is about a stream received through an SFU. */
function viaSfu(streams: ReadonlyMap<number, StreamView>, issue: Issue): boolean {
  const receiver = issue.direction === 'in' && issue.streamId !== null ? streams.get(issue.streamId) : undefined;
  return receiver !== undefined && throughSfu(streams.values(), receiver);
}

function link(symptom: Issue, cause: Issue): void {
  symptom.causedBy = cause;
  symptom.check = `It follows from ${cause.participant}'s ${cause.type}: look there. ${symptom.participant}'s own network and device are not the cause.`;
}

/** Links to a newly raised cause the unlinked symptoms it explains that began from `causeLeadS` before it. */
function linkConsequences(cause: Issue, issues: Iterable<Issue>, explains: (symptom: Issue) => boolean): Issue[] {
  const from = cause.start - THRESHOLDS.causeLeadS * 1000;
  const linked: Issue[] = [];
  for (const i of issues) {
    if (!CONSEQUENCES.has(i.type) || i.causedBy || (i.end !== null && i.end < from) || i.start < from || !explains(i)) continue;
    link(i, cause);
    linked.push(i);
  }
  return linked;
}

/**
 * Links what a newly raised issue explains or is explained by: a sender's cause takes its receivers'
 * symptoms, the SFU's side (`sfu-path`) every symptom of what is received through the SFU; a receiver's
 * symptom takes its sender's open cause, or the SFU's.
 * Returns the issues linked other than `raised` (they changed).
 */
export function linkCauses(raised: Issue, issues: Iterable<Issue>, streams: ReadonlyMap<number, StreamView>): Issue[] {
  if (raised.type === SFU_CAUSE) return linkConsequences(raised, issues, (i) => viaSfu(streams, i));
  if (isCause(raised, streams)) return linkConsequences(raised, issues, (i) => senderOf(streams, i) === raised.participant);
  if (CONSEQUENCES.has(raised.type) && !raised.causedBy) {
    const sender = senderOf(streams, raised);
    const open = [...issues].filter((i) => i.end === null);
    const cause =
      (sender === null ? undefined : open.find((i) => isCause(i, streams) && i.participant === sender)) ??
      (viaSfu(streams, raised) ? open.find((i) => i.type === SFU_CAUSE) : undefined);
    if (cause) link(raised, cause);
  }
  return [];
}
