import { type Detector, levelOf } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import type { Sample } from '../types.js';
import type { StreamView } from '../view.js';

/** The jitter levels of a stream: audio's as they are; video's raised by the spread of its frames' packets (THRESHOLDS.videoFrameJitterShare). */
function jitterLevels(stream: StreamView, sample: Sample): readonly [number, number] {
  const fps = stream.meta.kind === 'video' ? stream.value('fps', sample) : null;
  if (!fps) return THRESHOLDS.jitterMs;
  const spread = (THRESHOLDS.videoFrameJitterShare * 1000) / fps;
  return [THRESHOLDS.jitterMs[0] + spread, THRESHOLDS.jitterMs[1] + spread];
}

/**
 * Packets arriving so unevenly that a person notices: the jitter is high for the stream (video's
 * packets leave in bursts, a frame at a time) and the jitter buffer holds media long to absorb it. The
 * buffer alone is not the test: it also grows with the RTT (video waits for retransmissions, and audio
 * is held with it for lip sync: 320 ms in the lab under 300 ms of added delay and no jitter).
 */
export const highJitter: Detector = {
  type: 'high-jitter',
  category: 'network',
  check: "The receiver's network: Wi-Fi contention, uploads or downloads sharing the link, a mobile connection.",
  stream: {
    applies: (meta) => meta.direction === 'in',
    level(stream, sample) {
      if (stream.age(sample) < THRESHOLDS.jitterSettleS) return null;
      const jitter = levelOf(stream.value('jitterMs', sample), jitterLevels(stream, sample));
      const bufferMs = stream.value('jitterBufferMs', sample);
      if (jitter === null || bufferMs === null) return jitter;
      return Math.min(jitter, levelOf(bufferMs, THRESHOLDS.jitterBufferMs)!) as 0 | 1 | 2;
    },
    detail(stream, sample) {
      const jitterMs = stream.value('jitterMs', sample);
      const jitterBufferMs = stream.value('jitterBufferMs', sample);
      const buffer = jitterBufferMs === null ? '' : `, held ${jitterBufferMs.toFixed(0)} ms in the jitter buffer`;
      return { evidence: { jitterMs, jitterBufferMs }, cause: `${stream.meta.kind} to ${stream.meta.participant} arrives with ${jitterMs?.toFixed(0) ?? '?'} ms of jitter${buffer}` };
    },
  },
};
