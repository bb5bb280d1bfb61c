/**
 * Every threshold the detectors and scores use, in one place, each with where it comes from. A level
 * is [warning, critical]; a value is compared with `>=` unless the name says it is a floor.
 */
export const THRESHOLDS = {
  /**
   * Received packet loss, %. GCC holds its rate between 2 and 10 % loss and cuts it above 10 % (Jansen
   * et al. 2017, eq. 6); below about 3 % concealment hides most of it in audio and video.
   */
  lossPct: [3, 10],
  /**
   * Round-trip time, ms. ITU-T G.114: up to 150 ms one way (300 ms round trip) most users are satisfied;
   * beyond 300 ms one way (600 round trip) conversation breaks down.
   */
  rttMs: [300, 600],
  /** Interarrival jitter, ms. Common VoIP planning values: above 30 ms jitter buffers add audible delay, above 60 they overflow. */
  jitterMs: [30, 60],
  /**
   * The receiver's mean jitter-buffer delay, ms, where the browser reports it: a buffer holding 100 ms
   * spends two thirds of G.114's 150-ms one-way budget on evening out arrival times; 200 ms exceeds it.
   * Seen as the symptom of jitter the RFC 3550 estimate smooths away (60 ms of added jitter left that under 30).
   */
  jitterBufferMs: [100, 200],
  /**
   * Received audio concealed (made up by the receiver), % of samples. With the E-model values used for
   * Opus (Bpl 25.1), 3 % effective loss takes ~0.3 off the MOS and 10 % ~1.0: audible, then bad.
   */
  concealedPct: [3, 10],
  /** Received video frozen for at least this share of an interval counts as standing still (with `freeze.fps`). */
  frozenShare: 0.5,
  /** Bursty loss: in the last `windowS` seconds, at least `burstSeconds` seconds at or above `burstPct`, and at least `quietSeconds` below 1 %. */
  burst: { windowS: 10, burstPct: 15, burstSeconds: 2, quietSeconds: 4 },
  /**
   * An outbound video stream the browser says is limited by bandwidth: a problem once the call's first
   * seconds of ramp-up are over (about 10 s in Jansen et al. §4.1), critical when it sends under
   * `criticalShare` of its own peak of the last `peakWindowS` or the far end reports heavy loss.
   */
  congestion: { rampUpS: 15, peakWindowS: 60, criticalShare: 0.3, criticalRemoteLossPct: 10 },
  /** CPU-limited encoding: critical when the sent frame rate falls under this share of its peak. */
  cpu: { criticalFpsShare: 0.5, peakWindowS: 60 },
  /** Video freeze: received FPS under `fps` after it had reached `flowingFps` in the last `windowS`. */
  freeze: { fps: 2, flowingFps: 10, windowS: 30 },
  /** No media: a stream that carried media sends or receives under this, kbit/s. */
  noMediaKbps: 1,
  /** A receiver's frame height or rate under this share of what its sender sends: [warning, critical]. */
  receivedShare: [0.5, 0.25],
  /** One-way media: the sender sends at least this (kbit/s) and the receiver, reporting, gets under `noMediaKbps`. */
  oneWaySendKbps: 20,
  /** Call set-up, from the first connection event to connected, ms: [warning, critical]. */
  setupMs: [3000, 10_000],
  /** Hysteresis: samples in a row to raise, and to clear. One noisy sample neither raises nor clears. */
  raiseAfter: 2,
  clearAfter: 4,
  /** Values older than this are not a stream's current state (its participant stopped reporting), ms. */
  staleMs: 4000,
} as const;
