export {
  agreement,
  type Agreement,
  type AgreementOptions,
  type AgreementRow,
  agreementTable,
  type CalibratedWindow,
  CLEAN_FAMILY,
  type HeardWindow,
  PESQ,
  type Reference,
  type ScoredWindow,
  VISQOL,
  VMAF,
} from './agreement.js';
export { FRAME_CODE_BITS, FRAME_CODE_PERIOD, frameCodeArea, readFrameNumber, stampFrameNumber } from './frame-code.js';
export { PSNR_MAX_DB, psnr, resizeLuma, ssim } from './luma.js';
export { alignStream, BEHIND_MS, type FrameSeen, type TickAlignment, type TimelineOptions, type WindowAlignment } from './timeline.js';
export { vmafToMos } from './scale.js';
export { alignInLoop, type LoopAlignment, loopCut, syllables } from './speech.js';
