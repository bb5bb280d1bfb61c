import { APP_LIMIT } from '@rtcscope/metrics';
import { heldByApp } from '../app-limits.js';
import type { Detector } from '../detector.js';

/**
 * A sent stream held by its own app's settings (a `maxBitrate`, a picture scaled down, a frame rate
 * capped): information, the app's choice, not a fault of the CPU or the network; its receivers' lower
 * quality sits under it.
 */
export const appLimit: Detector = {
  type: APP_LIMIT,
  category: 'endpoint',
  check:
    "The app's own sender settings (RTCRtpSender.setParameters: maxBitrate, scaleResolutionDownBy, maxFramerate): whether the limit is meant, e.g. a thumbnail's layer or a data-saving mode.",
  levels: ['info', 'info'],
  stream: {
    applies: (meta) => meta.direction === 'out',
    level: (stream, sample) => (stream.appLimit === null ? null : heldByApp(stream, sample) ? 1 : 0),
    detail: (stream, sample) => ({
      evidence: {
        kbps: stream.value('kbps', sample),
        fps: stream.value('fps', sample),
        height: stream.value('height', sample),
        appMaxKbps: stream.appLimit?.kbps ?? null,
        appScaleDownBy: stream.appLimit?.scale ?? null,
        appMaxFps: stream.appLimit?.fps ?? null,
      },
      cause: `${stream.meta.participant}'s ${stream.meta.kind} is ${heldByApp(stream, sample) ?? 'limited by the app'}: its own sender settings`,
    }),
  },
};
