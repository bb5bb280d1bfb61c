export { launchChromium, loopbackContext } from './browser/chromium.js';
export { writeY4m } from './browser/y4m.js';
export { chain, EmulatedLink } from './emulator/link.js';
export { type Endpoint, PairRelay } from './emulator/udp-relay.js';
export { connectPeers, hangUp, openPeer, type PeerConfig, selectedLocalAddress, truth, type TruthSnapshot } from './browser/peer.js';
export { loopbackCandidate, withOnlyCandidate } from './browser/sdp.js';
export { type AppliedChange, type RunOptions, type RunResult, runPair } from './runner/run-pair.js';
export { type FlowSummary, type RunSummary, summarizeRun } from './runner/summary.js';
