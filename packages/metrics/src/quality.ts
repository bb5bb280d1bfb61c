export type Verdict = 'good' | 'fair' | 'poor' | 'unknown';

export interface VerdictInputs {
  /** The call's score (1–5), null before any window was scored. */
  score: number | null;
  /** The severities of the call's issues, consequences included (a receiver's freeze is the call's however it came). */
  severities: readonly ('info' | 'warning' | 'critical')[];
  /**
   * The app's own sender settings held media in the call (an `app-limit` issue: a `maxBitrate`, a picture
   * scaled down): a low score is then the app's choice, which makes the call fair at worst, not poor.
   */
  appLimited?: boolean;
}

/**
 * Scores (1–5, what people saw and heard) that make a call fair or poor whatever was found, on the ACR
 * scale's words: under 2 is worse than "poor", under 3 worse than "fair". A score says what the verdict
 * may not contradict: no call scored 1.15 is "fair" because no detector named why.
 */
const POOR_BELOW = 2;
const FAIR_BELOW = 3;

/**
 * The call's one verdict, wherever it is shown: the worse of what the diagnosis found (harm a person
 * notices: poor with a critical issue, fair with a warning) and what the score says (poor under
 * POOR_BELOW, fair under FAIR_BELOW). A clean call's score depends on its source (a 10-fps camera, a
 * small picture), which the call page explains: such a call is good or, at a small picture's 10 fps, fair.
 */
export function callVerdict({ score, severities, appLimited = false }: VerdictInputs): Verdict {
  if (severities.includes('critical') || (score !== null && score < POOR_BELOW && !appLimited)) return 'poor';
  if (severities.includes('warning') || (score !== null && score < FAIR_BELOW)) return 'fair';
  if (score === null) return severities.length ? 'good' : 'unknown';
  return 'good';
}

/** The issue of a sender held back by its own app's settings (the diagnosis' app-limit detector). */
export const APP_LIMIT = 'app-limit';

/** An issue as the verdict reads it: its type, severity, and its cause's type where it has one. */
export interface JudgedIssue {
  type: string;
  severity: 'info' | 'warning' | 'critical';
  causeType?: string | null;
}

/**
 * The verdict from a call's score and issues (`callVerdict`): what follows from the app's own limit (its
 * receivers' smaller picture) is the app's choice and counts as information.
 */
export function issuesVerdict(score: number | null, issues: readonly JudgedIssue[]): Verdict {
  return callVerdict({
    score,
    severities: issues.map((i) => (i.causeType === APP_LIMIT ? 'info' : i.severity)),
    appLimited: issues.some((i) => i.type === APP_LIMIT),
  });
}

/** What the verdict is based on, for the people who read it. */
export const VERDICT_RULE = `The worse of what the diagnosis found and what the score says: poor with a critical issue or a score under ${POOR_BELOW}, fair with a warning or a score under ${FAIR_BELOW}, good otherwise; what the app's own sender settings hold back (a maxBitrate, a picture scaled down) is its choice: fair at worst. The score (1–5) rates what each participant saw and heard; a clean call's depends on its source (frame rate, picture size).`;
