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
  /**
   * Samples in a row a high RTT takes to raise: a conversation's delay is heard when it lasts. The pair's
   * RTT comes from ICE checks a few seconds apart, and one answered late reads high until the next (lab,
   * 5 % random loss on the far side's downlink: 413 ms for 3 s on a 5-ms path).
   */
  rttRaiseAfter: 5,
  /**
   * Seconds an ICE `disconnected` lasts before it is raised. The standard's own words: it "may trigger
   * intermittently and resolve just as spontaneously on less reliable networks" (W3C webrtc-pc,
   * RTCIceConnectionState). Lab: Firefox under 20 % loss went disconnected for under a second and came
   * back; Chrome declares a path dead (failed) only after its consent checks go unanswered far longer.
   */
  iceDisconnectedS: 5,
  /**
   * Interarrival jitter, ms (RFC 3550's estimate: a smoothed mean deviation, about a third of the range
   * over which delay varies). Measured in the lab: 60 ms of added jitter reads 12–24 ms, absorbed (the
   * jitter buffers grew by 15–40 ms, the score unchanged), a clean or only delayed path 1–5, and clean
   * calls on a loaded 2-core host 15–18 ms of audio jitter while lip sync held their audio 150–320 ms for
   * the video: no one hears that. 25 ms is delay varying over ~75 ms, beyond what 60 ms of added jitter
   * makes; 40 ms (over ~120 ms) overflows common VoIP planning's 30-ms buffer allowance several times over.
   */
  jitterMs: [25, 40],
  /**
   * Jitter is a problem once a person notices it: when it makes the jitter buffer hold media this long, ms
   * (the delay it adds to the path's; ITU-T G.114's 150 ms one way, most users satisfied, and 300). Under
   * that the buffer absorbed it: in the lab, 60 ms of added delay variation read 17–22 ms of jitter with
   * buffers of 40–100 ms and the score unchanged. Where a browser does not report its buffer, the jitter alone.
   */
  jitterBufferMs: [150, 300],
  /**
   * A video frame's packets leave together, paced at about 2.5 times the target rate (WebRTC's pacer): a
   * clean path's video jitter grows with the frame interval (a clean 10-fps camera call read 16–21 ms, a
   * clean 720p10 lab call 56, a 30-fps one 1–28). Video's jitter levels are `jitterMs` plus this share of
   * its frame interval, and its jitter buffer's levels plus one frame interval (it holds a frame until
   * its last packet: a clean 720p10 call held 172 ms).
   */
  videoFrameJitterShare: 0.6,
  /**
   * Jitter a person is about to hear: the jitter at `jitterMs`' warning level (video's raised) in
   * `jitterShare` of the last `seconds` samples, while the jitter buffer, at `fromBufferShare` of
   * `jitterBufferMs`' warning level or more (video's a frame more), grew `riseMs` or more over those
   * seconds. Lab, 300 ms of added jitter: audio jitter 25–31 ms from the first second, its buffer 49, 75,
   * 67, 100, 145, 204 ms a second apart (held over 150 only 6 s in), and in another run 25–31 ms of
   * jitter but for one second's 24, the buffer 30, 91, 96, 118, 178 ms; clean calls' buffers stay within ~15 ms.
   */
  jitterRise: { jitterShare: 2 / 3, seconds: 3, fromBufferShare: 2 / 3, riseMs: 40 },
  /** A jitter buffer starts deep and settles in the stream's first seconds: judged after this long, s. */
  jitterSettleS: 10,
  /**
   * Received audio concealed (made up by the receiver), % of samples. With the E-model values used for
   * Opus (Bpl 25.1), 3 % effective loss takes ~0.3 off the MOS and 10 % ~1.0: audible, then bad.
   */
  concealedPct: [3, 10],
  /**
   * Audio trouble (concealment, loss in runs) raised only once it lasts this many one-second samples: a
   * shorter one is a glitch the call's score counts, not an issue to chase. Lab: clean calls on a loaded
   * 2-core host concealed 4.6–6.9 % for 2 s, and 0–3 s at a call's start while its jitter buffer fills;
   * every impaired case of `bench:diagnosis` concealed for 20 s or more.
   */
  audioRaiseAfter: 4,
  /** Received video frozen for at least this share of an interval counts as standing still (with `freeze.fps`). */
  frozenShare: 0.5,
  /**
   * Bursty loss: in the last `windowS` seconds, at least `burstSeconds` seconds at or above `burstPct`,
   * and at least `quietSeconds` below 1 %, the loss coming and going (not a step); or, within a second with at least `concealedPct`'s warning
   * level of audio concealed, gaps of `concealmentEventMs` on average (a lost 20-ms packet is one short
   * gap; a run of them, one long). Measured in the lab: random loss of 10 and 20 % made gaps of 12–23 ms,
   * Gilbert–Elliott bursts (p 0.02, r 0.2) 30–40 ms — and 15–36 in the runs of 2026-12-03, so gaps alone
   * missed them; or, over the lossy span of the window (at least `dispersionSeconds`), the seconds' lost
   * packets spread `dispersion` times as widely as random loss at the same share would (its index of
   * dispersion), crossing that share `crossings` times (bursty-loss.ts: video 5.3 under those bursts,
   * 0.9–1.5 under 10 % random loss); or, over the last `nackWindowS` of a video stream, at least
   * `nackLost` packets lost (and `lossPct`'s warning share), some in each of its samples (one gap is not
   * bursts), for at least `nackSent` NACKs, `lostPerNack` or more each. A receiver asks for a run of lost packets in one NACK and for a lone one in its own, so the
   * ratio is a run's mean length less the NACKs it repeats: lab, 360p30 video per second, those bursts 2.5–5
   * (17 lost for 5 NACKs, 26 for 6, 28 for 8), random loss of 10 % 0.8–1.2 and of 20 % 0.5–1.1; over 3-s
   * windows, bursts 1.2–3.7, random loss at most 1.2 (at 2, a second run told its bursts only 8 s in). A test over
   * seconds, it raises after `raiseAfter` samples (9 s to tell those bursts by their spread, 3 by this).
   */
  burst: {
    windowS: 10,
    burstPct: 15,
    burstSeconds: 2,
    quietSeconds: 4,
    concealmentEventMs: [27, 50],
    dispersion: 3,
    dispersionSeconds: 5,
    crossings: 3,
    nackWindowS: 3,
    nackLost: 20,
    nackSent: 5,
    lostPerNack: 1.6,
  },
  /**
   * An outbound video stream the browser says is limited by bandwidth: a problem once the call's first
   * seconds of ramp-up are over (about 10 s in Jansen et al. §4.1), critical when it sends under
   * `criticalShare` of its own peak of the last `peakWindowS` or the far end reports heavy loss. The
   * browser says so only once its encoder has cut resolution (in the lab, 7–8 s after an uplink was capped);
   * a queue overflowing on the way says it at once: the far end lost `criticalRemoteLossPct` or more in the
   * last `overflowWindowS` (its reports come about once a second and may say 0 between losses) while the RTT
   * stands `queueMs` over its recent lowest (lab, 300 kbit/s cap: 52–98 % lost, RTT
   * 5 → 170 ms within a second; random loss leaves the RTT alone, added delay or a starved CPU lose nothing).
   * A sender still climbing is probing, not held back: bandwidth-limited while its mean rate over the last
   * half of `risingWindowS` is `risingShare` over its mean over the whole (about 1 % a second; GCC's increase
   * is up to 8 % a second, Jansen et al. §3). How long that takes depends on the picture and the start rate:
   * a clean field call through TURN was still climbing at 1.3 Mbit/s 16 s in, clean 720p lab calls until
   * 20–28 s, limited by bandwidth the whole way. A limited sender still sending `keptShare` of its peak or
   * more is no one's problem: Chromium sending 1.7 Mbit/s of 360p to Firefox said bandwidth for 74 s at
   * 96 % of its peak. So a sender held at a cap from its very start, sending flat, is not told. A larger
   * picture takes longer to reach its rate: `rampUpPerDoublingS` more per doubling of the sent height over
   * 360 (GCC's 8 % a second doubles the rate in 9 s; a clean 720p24 lab call dipped to 81 % of its peak 16 s in).
   * Under `keptShare` it is held back once its mean over the last `heldS` is (the clean 720p24 call's dip
   * lasted 4 s; a capped uplink's rate stays down, and under `criticalShare` it is told at once). A clean
   * 1080p15 lab call was held at 76 % of its peak for a minute (the lab's relay sharing 2 loaded cores),
   * sending 2.4 Mbit/s: no one notices that; GCC under a cap sends ~80 % of it (Jansen §4.1), so a cap a
   * tenth or more under the sender's rate takes it under 70 % of its peak.
   * A shared screen's encoder does not say bandwidth: under the lab's 300 kbit/s cap a 720p15 page sent
   * ~200 kbit/s (half its clean rate), reason none, dropping to 6–13 fps, its receiver's jitter buffer
   * holding 855 ms. What tells it is the connection: it sent 72–129 % of the browser's own estimate of
   * what its uplink carries (`availableOutgoingBitrate`), where a clean screen, still or scrolled, sent
   * 0.2–12 % of an estimate of 3–6 Mbit/s. A screen sending `screenUsedShare` of its estimate or more is held to it.
   * The overflow needs two heavy-loss reports in `overflowWindowS` and the RTT `queueMs` over its lowest of
   * the last `queueWindowS`: single reports of 50–75 % came amid 0 % on paths with added jitter (lab, 720p10
   * under 60 and 150 ms), and a path made 150 ms longer 35 s before is not a queue. One heavy report is
   * enough while the browser estimates its uplink carries less than the connection sends: Chromium under
   * the lab's 250 kbit/s cap reported 58, 0, 89, 0, 0, 0 % lost a second apart, the RTT 107–187 ms over 4,
   * its estimate down from 2,866 to 385 kbit/s within the first second as it sent 1,070 (in a CI run the
   * second heavy report came 6 s late, after the receiver's own count of the loss had come and gone);
   * jitter leaves the estimate far over what is sent (below). So is one while the sender's rate falls
   * under `keptShare` of its peak of the last `queueWindowS`: through Janus, which answers each publisher's
   * packets itself, Chromium under a 500 kbit/s cap said neither bandwidth nor an estimate under its rate
   * and its far end reported 34, 0, 41, 2 % lost as the RTT stood 120–200 ms over 3 for 4 s and the rate
   * fell from 1,700 to 126 kbit/s; in another run the two heavy reports fell too far apart to meet the
   * RTT's rise twice in a row, and the congestion went untold while its subscribers froze (a stray heavy
   * report under jitter comes with no such cut: the rate stays where it was). A sender whose
   * browser estimates `roomFactor` times what its connection sends has room on its uplink: the lab's 720p10
   * sender behind a downlink with bursty loss or 150 ms of jitter said bandwidth at 590 kbit/s with an
   * estimate of 3–3.8 Mbit/s (its feedback lost or late on the way back; Chrome's congestion window
   * pushback cuts the encoder then), where a capped uplink's estimate falls to the cap.
   * Firefox says neither bandwidth nor its estimate: under the lab's 300 kbit/s cap it sent 220–280 kbit/s
   * and 5–8 of the 20 frames a second it captured, its far end reporting 9–34 % lost in nearly every report
   * and the RTT at 150–190 ms over a floor of 3 for the whole minute (a standing queue, where Chromium's
   * drains). A browser that does not say is held back when it drops frames (under `cpu.unexplainedFpsShare`
   * of its capture) while half or more of the last `recentLossWindowS` of reports lost `lossPct[0]` or more
   * and its RTT stands `queueMs` over its lowest of `peakWindowS`: a starved CPU loses nothing, a longer path
   * loses nothing, and added jitter's stray heavy reports come amid none.
   */
  congestion: {
    rampUpS: 15,
    rampUpPerDoublingS: 9,
    peakWindowS: 60,
    criticalShare: 0.3,
    keptShare: 0.7,
    heldS: 8,
    criticalRemoteLossPct: 10,
    queueMs: 50,
    overflowWindowS: 5,
    queueWindowS: 10,
    recentLossWindowS: 10,
    risingShare: 1.03,
    risingWindowS: 10,
    screenUsedShare: 0.7,
    roomFactor: 2,
    /**
     * A sender limited by bandwidth that sends under half its camera's frames, or under this many a second
     * where the camera's rate is not known, is held back whatever its peak: a real recording's camera sent
     * 1 fps at 320×180, limited for the whole call (a dim camera gives 5–7 fps of its own accord).
     */
    starvedFps: 3,
  },
  /**
   * CPU-limited encoding: critical when the sent frame rate falls under `criticalFpsShare` of what the
   * camera delivers (SDKs before its `captureFps`: of the stream's peak since its first `settleS`, whose
   * frame rates are taken over partial intervals). A browser starved of CPU does not always say so (in the
   * lab, a renderer held to 10 % of a core sent 11–18 fps of a camera's 26–31 with `qualityLimitationReason`
   * none, its rate down to ~50 %): a sent frame rate under `unexplainedFpsShare` of that for
   * `sustainedS - 1` of the last `sustainedS` seconds, with no bandwidth limitation reported and the far end
   * losing under `lossPct`'s warning level for the last `lossFreeS` (an overflowing queue starves the encoder
   * of rate, not of CPU; the browser calls it bandwidth a few seconds later), counts too; without the camera's rate, only while the bit rate stays over `keptKbpsShare` of its
   * peak (a rate cut is the network's; a stopped track is no-media's). A starved renderer may also say
   * bandwidth: it answers the far end's reports late, and GCC reads that as a queue (lab, a 720p10 camera
   * starved 21 s in, still in its ramp-up: bandwidth all along, RTT 5 → 40–230 ms, 2–6 fps sent of 3–10
   * delivered, its estimate standing at 3.6 Mbit/s over 0.3–1.1 sent). Bandwidth said while the browser
   * estimates `congestion.roomFactor` times what its connection sends is judged as none.
   * Where the browser gives its encoder's time per frame (`encodeMs`), it separates the two at once: at
   * `busyEncodeShare` or more of the time a frame has (at the rate it could send), the drop counts after
   * `busyS - 1` of `busyS` seconds; under `idleEncodeShare`, it is not the CPU's at all. Lab, 360p30: 2–5 ms
   * a frame clean and under 300 ms of added delay, 2–10 ms under a 300-kbit/s cap (1–7 fps sent, the browser
   * saying none for 5 s), 13–81 ms with the renderer held to 10 % of a core (CPU told 3.1 s after the quota,
   * from 5.6).
   */
  cpu: {
    criticalFpsShare: 0.5,
    unexplainedFpsShare: 0.8,
    keptKbpsShare: 0.5,
    sustainedS: 5,
    busyS: 3,
    busyEncodeShare: 0.5,
    idleEncodeShare: 0.15,
    peakWindowS: 60,
    settleS: 5,
    lossFreeS: 10,
  },
  /**
   * Video freeze: received FPS under `fps` after it had reached `flowingFps` in the last `windowS`; judged
   * after a received stream's first `settleS` seconds. Then its decoder waits for a key frame, and through
   * an SFU each subscriber that joins makes every publisher send one, which a starting bandwidth estimate
   * (~300 kbit/s) paces out over a second or more: the lab's Janus calls showed browser-counted freezes at
   * 1–4 s of a subscriber's streams in clean calls.
   */
  freeze: { fps: 2, flowingFps: 10, windowS: 30, settleS: 5 },
  /** No media: a stream that carried media sends or receives under this, kbit/s. */
  noMediaKbps: 1,
  /**
   * A stream that carried no media this long, s, and resumes starts over: its encoder ramps up again from
   * a low rate and its jitter buffer refills (a camera turned on mid-call; the ramp-up and settling
   * allowances above count from then).
   */
  restartAfterS: 3,
  /** A receiver's frame height or rate under this share of what its sender sends: [warning, critical]. */
  receivedShare: [0.5, 0.25],
  /**
   * Both ends of a flow judged once each has carried media this long since it (re)started, s: the
   * receiver's decoder waits for a key frame and its rates are over partial seconds (a camera the app
   * turned on 30 s into a clean lab call: 26 fps sent, 11 received, for 2 s).
   */
  receivedSettleS: 5,
  /** One-way media: the sender sends at least this (kbit/s) and the receiver, reporting, gets under `noMediaKbps`. */
  oneWaySendKbps: 20,
  /** Call set-up, from the first connection event to connected, ms: [warning, critical]. */
  setupMs: [3000, 10_000],
  /** Hysteresis: samples in a row to raise, and to clear. One noisy sample neither raises nor clears. */
  raiseAfter: 2,
  clearAfter: 4,
  /**
   * An issue raised again within this many seconds of clearing is the one issue going on: a condition
   * that comes and goes (in the lab, jitter behind a cap that changes every 20 s was raised 13 times in
   * 100 s) is read as one issue with its worst severity, not a list of short ones.
   */
  reopenWithinS: 10,
  /**
   * A receiver's symptom that began up to this long before its sender's cause was raised follows from it,
   * s: the far end shows a sender's trouble first (in the lab, loss at the receiver within 2 s of an uplink
   * cap; the sender's congestion told 4–8 s after it, once its queue or encoder said so).
   */
  causeLeadS: 15,
  /**
   * A symptom that begins up to this long after a cause that explains it closed follows from it, s: its
   * aftermath (a freeze waiting for a key frame after the loss stopped; behind a cap its sender has settled
   * under, the audio's jitter from the video's bursts in the cap's queue: lab, Janus, 6 s after the
   * uplink's congestion closed, the cap still on). As long as an issue stays open after clearing (`reopenWithinS`).
   */
  causeLagS: 10,
  /**
   * Seconds over which `sfu-path` takes each subscriber's loss: long enough that subscribers whose
   * reports fall a second apart are compared over the same loss, short enough to follow a change.
   */
  sfuLossWindowS: 5,
  /** Values older than this are not a stream's current state (its participant stopped reporting), ms. */
  staleMs: 4000,
} as const;
