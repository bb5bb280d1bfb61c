/**
 * A call's means, defined once: the calls list sums them as samples arrive, a lab run's results compute
 * them from the stored series, and both say the same definitions next to the numbers.
 */

export interface MeanRoles {
  /** The stream's RTT (remote-inbound-rtp) counts: every sent stream, audio and video. */
  rtt: boolean;
  /** Its packet loss counts: every received stream, audio and video. */
  loss: boolean;
  /** Its frame rate counts: every received video stream. */
  fps: boolean;
}

export function meanRoles(direction: 'in' | 'out', kind: string): MeanRoles {
  return { rtt: direction === 'out', loss: direction === 'in', fps: direction === 'in' && kind === 'video' };
}

/** What each mean averages, for the places that show one. */
export const MEAN_DEFINITIONS = {
  rttMs: 'mean round-trip time over every sent stream and sample (remote-inbound-rtp), ms',
  lossPct: 'mean packet loss over every received stream (audio and video) and sample: lost / (received + lost) per sample, %',
  fps: 'mean frame rate over every received video stream and sample, frames/s',
} as const;

export interface MeanSample {
  direction: 'in' | 'out';
  kind: string;
  rttMs: number | null;
  lossPct: number | null;
  fps: number | null;
}

export interface CallMeans {
  rttMs: number | null;
  lossPct: number | null;
  fps: number | null;
}

/** The means of MEAN_DEFINITIONS over a call's (or one participant's) samples. */
export function callMeans(samples: Iterable<MeanSample>): CallMeans {
  const sum = { rttMs: [0, 0], lossPct: [0, 0], fps: [0, 0] };
  const add = (acc: number[], v: number | null) => {
    if (v === null) return;
    acc[0]! += v;
    acc[1]! += 1;
  };
  for (const s of samples) {
    const roles = meanRoles(s.direction, s.kind);
    if (roles.rtt) add(sum.rttMs, s.rttMs);
    if (roles.loss) add(sum.lossPct, s.lossPct);
    if (roles.fps) add(sum.fps, s.fps);
  }
  const mean = ([total, n]: number[]) => (n ? total! / n : null);
  return { rttMs: mean(sum.rttMs), lossPct: mean(sum.lossPct), fps: mean(sum.fps) };
}
