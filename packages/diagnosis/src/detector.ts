import type { CallView, ConnectionView, StreamView } from './view.js';
import type { Category, DiagnosisEvent, Level, Sample, Severity, StreamMeta } from './types.js';

/** Whom an observation is about: a participant, and where it applies a stream or connection of it. */
export interface Subject {
  participant: string;
  streamId: number | null;
  connectionId: number | null;
  direction: 'in' | 'out' | null;
}

export interface Detail {
  evidence: Record<string, number | string | null>;
  cause: string;
}

/**
 * What one sample (or event, or look at the call) says of a subject. Its detail (evidence and cause)
 * is made only when an issue is raised or worsens: most samples change nothing, and ingest passes
 * tens of thousands a second through here.
 */
export interface Observation {
  subject: Subject;
  ts: number;
  level: Level;
  detail: () => Detail;
  /** A second source says the same: raised after THRESHOLDS.raiseAfter in a row, not the detector's longer `raiseAfter`. */
  confirmed?: boolean;
}

/** The detail of an observation that cannot tell (level null): never asked for. */
export const NO_DETAIL = (): Detail => ({ evidence: {}, cause: '' });

/**
 * How a detector judges a stream's samples, the hot path (every sample of every stream): `level` is
 * asked for each and allocates nothing; `detail` only when an issue is raised or worsens.
 */
export interface StreamHook {
  /** Whether it judges such a stream at all (asked once per stream). */
  applies(meta: StreamMeta): boolean;
  /**
   * `connection`: the stream's peer connection as last sampled, for what only it says (the browser's
   * bandwidth estimate); `call`: the rest of the call, for the few that ask who else receives the stream.
   */
  level(stream: StreamView, sample: Sample, connection: ConnectionView | undefined, call: CallView): Level;
  detail(stream: StreamView, sample: Sample, connection: ConnectionView | undefined, call: CallView): Detail;
  /**
   * Whether a raised level's evidence already spans seconds (a test over a window), so a run of
   * THRESHOLDS.raiseAfter raises it, not the detector's longer `raiseAfter`; asked only of a raised level.
   */
  confirmed?(stream: StreamView, sample: Sample): boolean;
}

/**
 * A detector: one kind of issue, the hooks that tell it, and what to check when it is raised. Hooks
 * return null (or nothing) when the input does not concern them; hysteresis and the life are
 * the engine's, the same for every detector.
 */
export interface Detector {
  readonly type: string;
  readonly category: Category;
  readonly check: string;
  /** Samples in a row to raise and to clear; the defaults of THRESHOLDS unless an event decides at once. */
  readonly raiseAfter?: number;
  readonly clearAfter?: number;
  /** Whether an issue's evidence says it was raised on a confirmed level (after THRESHOLDS.raiseAfter, not `raiseAfter`). */
  confirmedBy?(evidence: Detail['evidence']): boolean;
  /** What levels 1 and 2 mean; warning and critical unless the detector only informs. */
  readonly levels?: readonly [Severity, Severity];
  stream?: StreamHook;
  onConnection?(connection: ConnectionView, sample: Sample, call: CallView): Observation | null;
  onEvent?(event: DiagnosisEvent, call: CallView): Observation | Observation[] | null;
  /** Looks across participants once the call's samples up to `now` are in. */
  onTick?(call: CallView, now: number): Observation[];
}

/** The worse of two levels; null only when neither can tell. */
export function worse(a: Level, b: Level): Level {
  if (a === null) return b;
  if (b === null) return a;
  return a >= b ? a : b;
}

/** The level of a value against [warning, critical] thresholds; null when the value is unknown. */
export function levelOf(value: number | null, [warning, critical]: readonly [number, number]): Level {
  if (value === null) return null;
  return value >= critical ? 2 : value >= warning ? 1 : 0;
}
