import { type Static, Type } from '@sinclair/typebox';
import { Nullable, Time } from './schema-parts.js';

/**
 * A calibration run: windows of lab calls whose received video was measured against the clip sent
 * (bench:quality, docs/scores.md), each with the score rtcscope gave it. The dashboard's "How good is the
 * score" page draws the project's latest.
 */
export const CALIBRATION_LIMITS = {
  /** A full campaign is ~350 windows; ten of them fit. */
  maxWindows: 5000,
  /** Runs a project keeps: an upload past this many removes its oldest. */
  keptRuns: 20,
} as const;

const Label = (description: string) => Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9 ._:%/()+-]+$', description });

export const CalibrationWindow = Type.Object(
  {
    content: Label('the clip sent (talking, busy)'),
    case: Label('what was set on the link, e.g. cap-300'),
    family: Label('its impairment family; clean calls are counted with every family'),
    ts: Time,
    score: Type.Number({ minimum: 1, maximum: 5, description: "rtcscope's video score of the window" }),
    vmaf: Nullable(Type.Number({ minimum: 0, maximum: 100, description: 'VMAF (vmaf_v0.6.1) of what was shown against what was sent' })),
    ssim: Nullable(Type.Number({ minimum: -1, maximum: 1 })),
    psnr: Nullable(Type.Number({ minimum: 0, maximum: 100, description: 'dB' })),
    frozenShare: Type.Number({ minimum: 0, maximum: 1, description: 'share of the window the picture on screen was over 200 ms behind' }),
    skipped: Type.Integer({ minimum: 0, maximum: 100_000, description: 'frames sent that never showed' }),
  },
  { additionalProperties: false },
);
export type CalibrationWindow = Static<typeof CalibrationWindow>;

export const CalibrationSetup = Type.Object(
  {
    sender: Label('the sending browser'),
    receiver: Label('the receiving browser'),
    codec: Label('e.g. VP8'),
    width: Type.Integer({ minimum: 16, maximum: 8192 }),
    height: Type.Integer({ minimum: 16, maximum: 8192 }),
    fps: Type.Number({ minimum: 1, maximum: 240 }),
    callS: Type.Integer({ minimum: 1, maximum: 86_400, description: 'seconds each call lasted' }),
    scoreModel: Type.String({ maxLength: 200, description: "the video model's constants the scores were given under" }),
  },
  { additionalProperties: false },
);
export type CalibrationSetup = Static<typeof CalibrationSetup>;

export const CalibrationUpload = Type.Object(
  {
    setup: CalibrationSetup,
    windows: Type.Array(CalibrationWindow, { minItems: 1, maxItems: CALIBRATION_LIMITS.maxWindows }),
  },
  { additionalProperties: false },
);
export type CalibrationUpload = Static<typeof CalibrationUpload>;

export const CalibrationStored = Type.Object({ id: Type.Integer(), createdAt: Time, windows: Type.Integer() });
export type CalibrationStored = Static<typeof CalibrationStored>;

export const CalibrationLatest = Type.Object({
  calibration: Type.Union(
    [Type.Object({ id: Type.Integer(), createdAt: Time, setup: CalibrationSetup, windows: Type.Array(CalibrationWindow) }), Type.Null()],
    { description: 'null: the project has none yet' },
  ),
});
export type CalibrationLatest = Static<typeof CalibrationLatest>;
