export { createMonitor, Monitor, type MonitorOptions, type PeerConnectionOptions, SDK_VERSION } from './monitor.js';
export { wrapPeerConnections } from './wrap.js';
export { normalize, type NormalizedStats, type StreamSample, type ConnectionSample } from './normalize.js';
