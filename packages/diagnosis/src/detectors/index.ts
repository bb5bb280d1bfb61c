import type { Detector } from '../detector.js';
import { appLimit } from './app-limit.js';
import { audioConcealment } from './audio-concealment.js';
import { burstyLoss } from './bursty-loss.js';
import { cpuLimitation } from './cpu-limitation.js';
import { downlinkLoss } from './downlink-loss.js';
import { highJitter } from './high-jitter.js';
import { highRtt } from './high-rtt.js';
import { iceFailure } from './ice-failure.js';
import { noMedia } from './no-media.js';
import { oneWayMedia } from './one-way-media.js';
import { receivedQuality } from './received-quality.js';
import { relayedPath } from './relayed-path.js';
import { sfuPath } from './sfu-path.js';
import { slowSetup } from './slow-setup.js';
import { uplinkCongestion } from './uplink-congestion.js';
import { videoFreeze } from './video-freeze.js';

/** Every detector the engine runs, by category. */
export const DETECTORS: readonly Detector[] = [
  uplinkCongestion,
  downlinkLoss,
  burstyLoss,
  highRtt,
  highJitter,
  cpuLimitation,
  appLimit,
  videoFreeze,
  audioConcealment,
  receivedQuality,
  noMedia,
  oneWayMedia,
  iceFailure,
  relayedPath,
  sfuPath,
  slowSetup,
];
