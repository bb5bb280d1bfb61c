// Through LiveKit, the ConnectionQuality livekit-client said of each side beside each window: the
// indicator a LiveKit app shows on its tiles, judged against the same reference as rtcscope's score.
import { LIVEKIT_QUALITY } from '@rtcscope/lab';
import { mean } from '@rtcscope/metrics';
import type { CallEvents } from '@rtcscope/protocol';
import { agreement, type CalibratedWindow, type Reference } from '@rtcscope/reference-quality';
import type { LabServer } from '../lab-server.js';

/**
 * The lowest ConnectionQuality livekit-client said of the sender and of the receiver over the window
 * (what their tiles showed), and the lower of the two as a rank (3 excellent … 0 lost).
 */
export interface LiveKitSaid {
  livekit?: { p0: string; p1: string; level: number | null };
}

/** livekit-client's ConnectionQuality, best first: its rank is 3 for excellent down to 0 for lost. */
const LIVEKIT_LEVELS = ['lost', 'poor', 'good', 'excellent'] as const;

/**
 * What LiveKit said of p0 and p1 over each window (from the call's events, as the lab's pages recorded
 * it): for a window's start, the lowest each was said to be while the window lasted.
 */
export async function liveKitSaid({ api }: LabServer, callId: string, windowMs: number): Promise<(ts: number) => LiveKitSaid> {
  const { events } = await api<CallEvents>(`/calls/${callId}/events`);
  const timeline = (p: string) =>
    events
      .filter((e) => e.participantId === p && e.type === 'metadata' && e.detail?.includes(LIVEKIT_QUALITY))
      .map((e) => ({
        ts: e.ts,
        level: LIVEKIT_LEVELS.indexOf((JSON.parse(e.detail!) as Record<string, string>)[LIVEKIT_QUALITY] as 'lost'),
      }));
  const said = { p0: timeline('p0'), p1: timeline('p1') };
  const lowest = (t: { ts: number; level: number }[], from: number) => {
    const levels = t.filter((x, k) => x.ts < from + windowMs && (t[k + 1]?.ts ?? Infinity) > from && x.level >= 0).map((x) => x.level);
    return levels.length ? Math.min(...levels) : null;
  };
  return (ts) => {
    const [p0, p1] = [lowest(said.p0, ts), lowest(said.p1, ts)];
    const name = (l: number | null) => (l === null ? 'unknown' : LIVEKIT_LEVELS[l]!);
    return { livekit: { p0: name(p0), p1: name(p1), level: p0 === null || p1 === null ? null : Math.min(p0, p1) } };
  };
}

/** How many windows LiveKit called each level (the lower of the two), e.g. "excellent 8, good 1". */
export const liveKitTally = (rs: readonly LiveKitSaid[]): string => {
  const n = new Map<string, number>();
  for (const r of rs) {
    const l = r.livekit?.level;
    const name = l === null || l === undefined ? 'unknown' : LIVEKIT_LEVELS[l]!;
    n.set(name, (n.get(name) ?? 0) + 1);
  }
  return [...n].map(([k, v]) => `${k} ${v}`).join(', ') || 'nothing';
};

const fmt = (v: number | null, digits = 2) => (v === null ? '–' : v.toFixed(digits));

/**
 * LiveKit's ConnectionQuality beside rtcscope's score: how each ranks the windows against the reference
 * (Spearman; LiveKit's 4 levels tie often), and what LiveKit called the windows the reference found poor.
 */
export function reportLiveKit<R extends LiveKitSaid & CalibratedWindow>(
  rs: readonly R[],
  reference: Reference<NoInfer<R>>,
  what: string,
  poorBelow: number,
  score: (r: R) => number | null,
): void {
  const judged = rs.filter((r) => r.livekit?.level !== null && r.livekit?.level !== undefined);
  if (!judged.length) return;
  const [ours, theirs] = [agreement(judged, reference, score), agreement(judged, reference, (r) => r.livekit!.level)];
  const poor = judged.filter((r) => (reference.value(r) ?? Infinity) < poorBelow);
  console.log(
    `
LiveKit's ConnectionQuality (the lower of sender's and receiver's over the window) against ${what}, on the ${judged.length} windows it judged: Spearman ${theirs.spearman === null ? '– (one level for every window: it ranks none)' : fmt(theirs.spearman)}; rtcscope's score on the same windows: Spearman ${fmt(ours.spearman)}, Pearson ${fmt(ours.pearson)}`,
  );
  console.log(`  all windows: LiveKit said ${liveKitTally(judged)}`);
  console.log(
    `  the ${poor.length} windows ${what} put below ${poorBelow}: LiveKit said ${liveKitTally(poor)}; rtcscope's score ${fmt(mean(poor.map(score).filter((v): v is number => v !== null)))} on average`,
  );
}
