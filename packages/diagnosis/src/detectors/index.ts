import type { Detector } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import type { Issue } from '../types.js';
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
import { uplinkLoss } from './uplink-loss.js';
import { videoFreeze } from './video-freeze.js';

/** Every detector the engine runs, by category. */
export const DETECTORS: readonly Detector[] = [
  uplinkCongestion,
  uplinkLoss,
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

/** How many samples in a row it took to raise an issue: its start plus that many intervals is when it was raised. */
export function samplesToRaise(issue: Pick<Issue, 'type' | 'evidence'>): number {
  const detector = DETECTORS.find((d) => d.type === issue.type);
  if (!detector || detector.confirmedBy?.(issue.evidence)) return THRESHOLDS.raiseAfter;
  return detector.raiseAfter ?? THRESHOLDS.raiseAfter;
}
