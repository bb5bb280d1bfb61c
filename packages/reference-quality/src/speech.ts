/**
 * Where in a looped source a stretch of received audio comes from: cross-correlation of the two, first of
 * their 10-ms loudness envelopes over every offset in the loop (cheap, and blind to the phase a codec
 * shifts), then of the samples themselves within one envelope frame of the best (for the reference cut
 * handed to PESQ, which aligns each utterance finely on its own).
 */
export interface LoopAlignment {
  /** The sample of the source loop the stretch's first sample was. */
  offset: number;
  /** Normalised cross-correlation of the samples at that offset (−1–1): near 0, the stretch is not the source. */
  correlation: number;
}

const FRAMES_PER_S = 100;

/**
 * Aligns `stretch` in the loop: over every offset, or only within `near.withinS` seconds of `near.offset`
 * (a sample), where the call's other windows say it must be (a stretch mostly lost matches noise anywhere).
 */
export function alignInLoop(
  source: Float32Array,
  stretch: Float32Array,
  rate: number,
  near?: { offset: number; withinS: number },
): LoopAlignment {
  const frame = rate / FRAMES_PER_S;
  if (!Number.isInteger(frame) || source.length % frame !== 0)
    throw new Error(`alignInLoop: the source loop must be a whole number of ${frame}-sample frames (it has ${source.length} samples)`);
  const sourceEnv = centred(envelope(source, frame));
  const stretchEnv = centred(envelope(stretch, frame));
  const period = sourceEnv.length;
  const lags = near
    ? Array.from({ length: 2 * Math.round(near.withinS * FRAMES_PER_S) + 1 }, (_, k) => {
        const lag = Math.round(near.offset / frame) - Math.round(near.withinS * FRAMES_PER_S) + k;
        return ((lag % period) + period) % period;
      })
    : Array.from({ length: period }, (_, lag) => lag);
  let coarse = 0;
  let top = -Infinity;
  for (const lag of lags) {
    let sum = 0;
    for (let k = 0; k < stretchEnv.length; k++) sum += stretchEnv[k]! * sourceEnv[(lag + k) % period]!;
    if (sum > top) [top, coarse] = [sum, lag];
  }
  let best: LoopAlignment = { offset: coarse * frame, correlation: -Infinity };
  for (let d = -frame; d <= frame; d++) {
    const offset = (((coarse * frame + d) % source.length) + source.length) % source.length;
    const correlation = correlationAt(source, stretch, offset);
    if (correlation > best.correlation) best = { offset, correlation };
  }
  return best;
}

/** `length` samples of the looped source from `offset` (wrapping): the reference a stretch aligned there is judged against. */
export function loopCut(source: Float32Array, offset: number, length: number): Float32Array {
  const out = new Float32Array(length);
  for (let k = 0; k < length; k++) out[k] = source[(offset + k) % source.length]!;
  return out;
}

/** Root-mean-square loudness of each whole frame. */
function envelope(x: Float32Array, frame: number): Float64Array {
  const out = new Float64Array(Math.floor(x.length / frame));
  for (let f = 0; f < out.length; f++) {
    let sum = 0;
    for (let k = f * frame; k < (f + 1) * frame; k++) sum += x[k]! * x[k]!;
    out[f] = Math.sqrt(sum / frame);
  }
  return out;
}

function centred(x: Float64Array): Float64Array {
  const m = x.reduce((a, b) => a + b, 0) / (x.length || 1);
  return x.map((v) => v - m);
}

function correlationAt(source: Float32Array, stretch: Float32Array, offset: number): number {
  let [xy, xx, yy] = [0, 0, 0];
  for (let k = 0; k < stretch.length; k++) {
    const [x, y] = [stretch[k]!, source[(offset + k) % source.length]!];
    xy += x * y;
    xx += x * x;
    yy += y * y;
  }
  return xx && yy ? xy / Math.sqrt(xx * yy) : 0;
}

/**
 * A speech-like signal made at run time, where no speech synthesizer is installed (the test suite):
 * syllables of a voiced tone (120–320 Hz, each under its own rise and fall) in phrases, with pauses
 * between, so its loudness envelope never repeats within the loop. Seeded: the same on every machine.
 */
export function syllables(seconds: number, rate: number, seed = 1): Float32Array {
  let s = seed;
  const random = () => (s = (s * 16807) % 2147483647) / 2147483647;
  const x = new Float32Array(Math.round(seconds * rate));
  let k = 0;
  while (k < x.length) {
    const [on, off, pitch, level] = [
      Math.floor((0.08 + 0.25 * random()) * rate),
      Math.floor((0.02 + 0.2 * random()) * rate),
      120 + 200 * random(),
      0.3 + 0.5 * random(),
    ];
    for (let j = 0; j < on && k < x.length; j++, k++)
      x[k] =
        level *
        Math.sin((Math.PI * j) / on) *
        (0.7 * Math.sin((2 * Math.PI * pitch * j) / rate) + 0.3 * Math.sin((4 * Math.PI * pitch * j) / rate));
    k += off;
  }
  return x;
}
