import type { RateObservation } from './fairness-series.js';

/** Whose a stream is, for its rate: the participant and the direction its media goes. */
export interface StreamOwner {
  participant: string;
  direction: 'in' | 'out';
}

/** One sample of a stream's rate (kbit/s; null when unknown). */
export interface StreamRate {
  id: number;
  ts: number;
  kbps: number | null;
}

/**
 * A participant's rate per direction per interval: each stream's mean rate over the interval, summed
 * over the participant's streams in that direction (audio, video, simulcast layers, a mesh's several
 * connections). Two samples of one stream in one interval are that stream's rate twice, never two
 * streams. The one definition behind the fairness series, the dashboard's rate and fairness charts and
 * the lab's run summaries. `interval` maps a sample's time to its interval's; streams `owner` does not
 * know, and unknown rates, are left out. Comes out in time order.
 */
export function participantRates(
  samples: Iterable<StreamRate>,
  owner: (id: number) => StreamOwner | undefined,
  interval: (ts: number) => number,
): RateObservation[] {
  const perStream = new Map<string, { ts: number; id: number; sum: number; n: number }>();
  for (const { id, ts, kbps } of samples) {
    if (kbps === null) continue;
    const at = interval(ts);
    const key = `${at} ${id}`;
    const mean = perStream.get(key);
    if (mean) {
      mean.sum += kbps;
      mean.n += 1;
    } else {
      perStream.set(key, { ts: at, id, sum: kbps, n: 1 });
    }
  }
  const perParticipant = new Map<string, RateObservation>();
  for (const { ts, id, sum, n } of perStream.values()) {
    const o = owner(id);
    if (!o) continue;
    const key = `${ts} ${o.direction} ${o.participant}`;
    const rate = perParticipant.get(key);
    if (rate) rate.kbps += sum / n;
    else perParticipant.set(key, { ts, participant: o.participant, direction: o.direction, kbps: sum / n });
  }
  return [...perParticipant.values()].sort((a, b) => a.ts - b.ts);
}
