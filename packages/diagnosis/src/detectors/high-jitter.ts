import { type Detector, levelOf } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import type { Sample } from '../types.js';
import type { StreamView } from '../view.js';

/** A stream's video frame interval, ms; 0 for audio or a frame rate not known. */
function frameIntervalMs(stream: StreamView, sample: Sample): number {
  const fps = stream.meta.kind === 'video' ? stream.value('fps', sample) : null;
  return fps ? 1000 / fps : 0;
}

const raisedBy = ([warning, critical]: readonly [number, number], ms: number): readonly [number, number] => [warning + ms, critical + ms];

/**
 * The jitter high in most of the last seconds while the jitter buffer, already deep, grows fast to absorb
 * it: the delay a person hears is on its way (lab, 300 ms of added jitter: the audio's jitter at 25–31 ms
 * from the first second, its buffer 49 → 100 ms in 3 s and 226 ms in 6). A buffer that grows with the
 * RTT alone (added delay) comes with no jitter; a loaded host's clean jitter stays under the level.
 */
function absorbing(stream: StreamView, jitterLevels: readonly [number, number], bufferMs: number): boolean {
  const { jitterShare, seconds, fromBufferShare, riseMs } = THRESHOLDS.jitterRise;
  const high = stream.tally('jitterMs', seconds, (v) => v >= jitterLevels[0]);
  if (high.passing < jitterShare * seconds) return false;
  const lowest = stream.low('jitterBufferMs', seconds + 1);
  return bufferMs >= fromBufferShare * THRESHOLDS.jitterBufferMs[0] && lowest !== null && bufferMs - lowest >= riseMs;
}

/**
 * Packets arriving so unevenly that a person notices: the jitter is high for the stream (video's
 * packets leave in bursts, a frame at a time) and the jitter buffer holds media long to absorb it, or
 * grows fast toward it (`absorbing`). The buffer alone is not the test: it also grows with the RTT (video
 * waits for retransmissions, and audio is held with it for lip sync: 320 ms in the lab under 300 ms of
 * added delay and no jitter).
 */
export const highJitter: Detector = {
  type: 'high-jitter',
  category: 'network',
  check: "The receiver's network: Wi-Fi contention, uploads or downloads sharing the link, a mobile connection.",
  stream: {
    applies: (meta) => meta.direction === 'in',
    level(stream, sample) {
      if (stream.age(sample) < THRESHOLDS.jitterSettleS) return null;
      // Video's levels are raised by the spread of a frame's packets, and its buffer's by the frame it holds (THRESHOLDS.videoFrameJitterShare).
      const frameMs = frameIntervalMs(stream, sample);
      const jitterLevels = raisedBy(THRESHOLDS.jitterMs, THRESHOLDS.videoFrameJitterShare * frameMs);
      const jitter = levelOf(stream.value('jitterMs', sample), jitterLevels);
      const bufferMs = stream.value('jitterBufferMs', sample);
      if (jitter === null || bufferMs === null) return jitter;
      const held = Math.min(jitter, levelOf(bufferMs, raisedBy(THRESHOLDS.jitterBufferMs, frameMs))!) as 0 | 1 | 2;
      return held || !absorbing(stream, jitterLevels, bufferMs - frameMs) ? held : 1;
    },
    detail(stream, sample) {
      const jitterMs = stream.value('jitterMs', sample);
      const jitterBufferMs = stream.value('jitterBufferMs', sample);
      const lowest = stream.low('jitterBufferMs', THRESHOLDS.jitterRise.seconds + 1);
      const rising = jitterBufferMs !== null && lowest !== null && jitterBufferMs - lowest >= THRESHOLDS.jitterRise.riseMs;
      const buffer =
        jitterBufferMs === null
          ? ''
          : `, held ${jitterBufferMs.toFixed(0)} ms in the jitter buffer${rising ? ` (up from ${lowest.toFixed(0)} ms ${THRESHOLDS.jitterRise.seconds} s before)` : ''}`;
      return {
        evidence: { jitterMs, jitterBufferMs },
        cause: `${stream.meta.kind} to ${stream.meta.participant} arrives with ${jitterMs?.toFixed(0) ?? '?'} ms of jitter${buffer}`,
      };
    },
  },
};
