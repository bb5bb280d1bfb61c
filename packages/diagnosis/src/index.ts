export type { Detector, Observation, Subject } from './detector.js';
export { DETECTORS, samplesToRaise } from './detectors/index.js';
export { CallDiagnosis, type IssueChanges } from './engine.js';
export { sendersOf } from './view.js';
export { carriesMedia, endsConnection, type StreamFacts, type StreamState, streamStates } from './life.js';
export { THRESHOLDS } from './thresholds.js';
export {
  type Category,
  type ConnectionMeta,
  type DiagnosisEvent,
  type Issue,
  type Level,
  PARTICIPANT_LEFT,
  type Sample,
  type Severity,
  type StreamMeta,
} from './types.js';
export {
  type AudioConditions,
  audioMos,
  audioR,
  audioShortfall,
  type CodecImpairment,
  CODECS,
  listeningMos,
  mosFromR,
  mouthToEarMs,
} from './scores/emodel.js';
export { VIDEO_MODEL, type VideoConditions, type VideoModel, videoMos, videoShortfall } from './scores/video.js';
export {
  callScores,
  experienced,
  type HeardSecond,
  missedPct,
  type ParticipantWindow,
  participantScores,
  SCORE_WINDOW_MS,
  type ScorePoint,
  scoreSummary,
  streamWeight,
} from './scores/windows.js';
export { diagnoseRecording, type Recording, RecordingDiagnosis, type RecordingPart, TICK_LAG_MS } from './recorded.js';
