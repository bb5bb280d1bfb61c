export { launchChromium, loopbackContext } from './browser/chromium.js';
export { writeY4m } from './browser/y4m.js';
export { chain, EmulatedLink } from './emulator/link.js';
export { type Endpoint, PairRelay } from './emulator/udp-relay.js';
export { connectPeers, hangUp, openPeer, type PeerConfig, selectedLocalAddress, truth, type TruthSnapshot } from './browser/peer.js';
export { loopbackCandidate, withOnlyCandidate } from './browser/sdp.js';
export { type RunOptions, runScenario } from './runner/run-scenario.js';
