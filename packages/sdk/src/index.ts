export { createMonitor, Monitor, type MonitorOptions, type PeerConnectionOptions, SDK_VERSION } from './monitor.js';
export { wrapPeerConnections } from './wrap.js';
export { routeOf } from './transport.js';
export { normalize, type NormalizedStats, type StreamSample, type ConnectionSample } from './normalize.js';
export {
  type JanusSubscribedStream,
  type LiveKitMonitor,
  type LiveKitPublicationLike,
  type LiveKitRoomConnectable,
  type LiveKitRoomLike,
  monitorLiveKitRoom,
  nameJanusPublisher,
  nameJanusSubscription,
  type TrackNamer,
  watchLiveKitRoom,
} from './sfu.js';
