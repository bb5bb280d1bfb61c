export { launchChromium, loopbackContext, peerContext } from './browser/chromium.js';
export { writeY4m } from './browser/y4m.js';
export { CLIP_CONTENTS, type ClipContent, type NumberedClip, writeNumberedClip } from './quality/clip.js';
export { AudioRecording } from './quality/audio-recorder.js';
export { measureVideo, type WindowQuality } from './quality/measure.js';
export { type AudioMeasureOptions, type HeardQuality, measureAudio } from './quality/measure-audio.js';
export { type SpeechLoop, writeSpeechLoop, writeSyllableLoop } from './quality/speech.js';
export { VideoRecording } from './quality/recorder.js';
export { runPrecallInPage } from './browser/precall.js';
export { rtcstatsClientBundle, rtcstatsCollector, rtcstatsUntil } from './browser/rtcstats.js';
export { chain, EmulatedLink } from './emulator/link.js';
export { type Endpoint, PairRelay } from './emulator/udp-relay.js';
export { UdpProxy } from './emulator/udp-proxy.js';
export {
  connectPeers,
  hangUp,
  openPeer,
  type PeerConfig,
  type PeerPage,
  selectedLocalAddress,
  truth,
  type TruthSnapshot,
} from './browser/peer.js';
export { hostCandidate, withOnlyCandidate } from './browser/sdp.js';
export { type RunOptions, runScenario } from './runner/run-scenario.js';
export { KernelLink } from './emulator/kernel-link.js';
export { type Backend, BACKENDS, chooseBackend, probeHost } from './emulator/probe.js';
export { LabCall } from './runner/call.js';
export { RunLinks } from './runner/links.js';
export { FIREFOX, firefoxPeer, launchFirefox } from './browser/firefox.js';
export { cpuLimitUsable, limitCpu } from './browser/cpu-limit.js';
export { LiveKitServer } from './sfu/livekit-server.js';
export { postLiveKitEvents } from './sfu/livekit-webhooks.js';
export { LIVEKIT_QUALITY } from './browser/livekit.js';
