import { THRESHOLDS } from './thresholds.js';
import type { Issue } from './types.js';
import type { StreamView } from './view.js';

/** What a receiver suffers when the media reaching it was damaged before it: loss, bursts, freezes, lower quality, jitter, concealment. */
const CONSEQUENCES: ReadonlySet<string> = new Set(['downlink-loss', 'bursty-loss', 'video-freeze', 'received-quality', 'high-jitter', 'audio-concealment', 'no-media']);

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
  const lossPct = Math.max(typeof remoteLossPct === 'number' ? remoteLossPct : 0, typeof recentRemoteLossPct === 'number' ? recentRemoteLossPct : 0);
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
    const receives = s.meta.direction === 'in' && s.meta.ssrc === sent.meta.ssrc && s.meta.participant !== sent.meta.participant;
    if (receives && (s.peak('lossPct', THRESHOLDS.congestion.recentLossWindowS) ?? 0) >= THRESHOLDS.lossPct[0]) return false;
  }
  return true;
}

const isCause = (i: Issue, streams: ReadonlyMap<number, StreamView>) =>
  SENDER_CAUSES.has(i.type) && i.direction === 'out' && !backingOffFromLoss(i) && !unconfirmedOverflow(i, streams);

/** The participant whose sent stream an issue's received stream is (matched by SSRC, as peer to peer); null for other issues. */
function senderOf(streams: ReadonlyMap<number, StreamView>, issue: Issue): string | null {
  const receiver = issue.direction === 'in' && issue.streamId !== null ? streams.get(issue.streamId) : undefined;
  if (!receiver) return null;
  for (const s of streams.values()) {
    if (s.meta.direction === 'out' && s.meta.ssrc === receiver.meta.ssrc && s.meta.participant !== receiver.meta.participant) return s.meta.participant;
  }
  return null;
}

function link(symptom: Issue, cause: Issue): void {
  symptom.causedBy = cause;
  symptom.check = `It follows from ${cause.participant}'s ${cause.type}: look there. ${symptom.participant}'s own network and device are not the cause.`;
}

/**
 * Links what a newly raised issue explains or is explained by: a sender's cause takes its receivers'
 * symptoms that began from `causeLeadS` before it; a receiver's symptom takes its sender's open cause.
 * Returns the issues linked other than `raised` (they changed).
 */
export function linkCauses(raised: Issue, issues: Iterable<Issue>, streams: ReadonlyMap<number, StreamView>): Issue[] {
  if (isCause(raised, streams)) {
    const from = raised.start - THRESHOLDS.causeLeadS * 1000;
    const linked: Issue[] = [];
    for (const i of issues) {
      if (!CONSEQUENCES.has(i.type) || i.causedBy || (i.end !== null && i.end < from) || i.start < from) continue;
      if (senderOf(streams, i) !== raised.participant) continue;
      link(i, raised);
      linked.push(i);
    }
    return linked;
  }
  if (CONSEQUENCES.has(raised.type) && !raised.causedBy) {
    const sender = senderOf(streams, raised);
    const cause = sender === null ? undefined : [...issues].find((i) => isCause(i, streams) && i.participant === sender && i.end === null);
    if (cause) link(raised, cause);
  }
  return [];
}
