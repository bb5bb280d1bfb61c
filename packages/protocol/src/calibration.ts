import { type Static, Type } from '@sinclair/typebox';
import { Nullable, Time } from './schema-parts.js';

/**
 * A calibration run: windows of lab calls whose received video was measured against the clip sent, and
 * whose received audio against the speech sent (bench:quality, docs/scores.md), each with the score
 * rtcscope gave it. The dashboard's "How good is the score" page draws the project's latest.
 */
export const CALIBRATION_LIMITS = {
  /** A full campaign is ~350 windows; ten of them fit. */
  maxWindows: 5000,
  /** Runs a project keeps: an upload past this many removes its oldest. */
  keptRuns: 20,
} as const;

const Label = (description: string) => Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9 ._:%/()+-]+$', description });

/** Which call a window was of, and when: the same for video and audio windows. */
const windowOf = (content: string) => ({
  content: Label(content),
  case: Label('what was set on the link, e.g. cap-300'),
  family: Label('its impairment family; clean calls are counted with every family'),
  setup: Type.Optional(
    Label(
      "where the call ran, e.g. 'firefox 360p VP8': the receiving browser, the picture's height, the codec (absent: the run's one setup)",
    ),
  ),
  run: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1000,
      description: 'which repetition of its setup, content and case the call was (absent: the first)',
    }),
  ),
  ts: Time,
});

export const CalibrationWindow = Type.Object(
  {
    ...windowOf('the clip sent (talking, busy, screen, lowlight)'),
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

export const CalibrationHeardWindow = Type.Object(
  {
    ...windowOf('the speech sent (its voice goes with the clip)'),
    score: Type.Number({ minimum: 1, maximum: 5, description: "rtcscope's audio score of the window (the E-model)" }),
    pesq: Nullable(
      Type.Number({ minimum: 1, maximum: 5, description: 'PESQ (P.862.2 wideband) MOS-LQO of what was heard against the speech sent' }),
    ),
    visqol: Type.Optional(
      Nullable(
        Type.Number({
          minimum: 1,
          maximum: 5,
          description: 'ViSQOL v3 (speech mode) MOS-LQO of the same (absent: runs before it was measured)',
        }),
      ),
    ),
    correlation: Type.Number({ minimum: -1, maximum: 1, description: 'how well the window matched the speech where it was aligned' }),
  },
  { additionalProperties: false },
);
export type CalibrationHeardWindow = Static<typeof CalibrationHeardWindow>;

export const CalibrationSetup = Type.Object(
  {
    sender: Label('the sending browser'),
    receiver: Label('the receiving browser'),
    codec: Label('e.g. VP8'),
    width: Type.Integer({ minimum: 16, maximum: 8192 }),
    height: Type.Integer({ minimum: 16, maximum: 8192 }),
    fps: Type.Number({ minimum: 1, maximum: 240 }),
    callS: Type.Integer({ minimum: 1, maximum: 86_400, description: 'seconds each call lasted' }),
    scoreModel: Type.String({ maxLength: 200, description: "the score models' constants the scores were given under" }),
  },
  { additionalProperties: false },
);
export type CalibrationSetup = Static<typeof CalibrationSetup>;

export const CalibrationUpload = Type.Object(
  {
    setup: CalibrationSetup,
    windows: Type.Array(CalibrationWindow, { minItems: 1, maxItems: CALIBRATION_LIMITS.maxWindows }),
    heard: Type.Optional(
      Type.Array(CalibrationHeardWindow, {
        maxItems: CALIBRATION_LIMITS.maxWindows,
        description: 'the received audio windows (none: the run measured no audio)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CalibrationUpload = Static<typeof CalibrationUpload>;

export const CalibrationStored = Type.Object({ id: Type.Integer(), createdAt: Time, windows: Type.Integer() });
export type CalibrationStored = Static<typeof CalibrationStored>;

export const CalibrationLatest = Type.Object({
  calibration: Type.Union(
    [
      Type.Object({
        id: Type.Integer(),
        createdAt: Time,
        setup: CalibrationSetup,
        windows: Type.Array(CalibrationWindow),
        heard: Type.Array(CalibrationHeardWindow),
      }),
      Type.Null(),
    ],
    { description: 'null: the project has none yet' },
  ),
});
export type CalibrationLatest = Static<typeof CalibrationLatest>;
