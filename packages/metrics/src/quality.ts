export type Verdict = 'good' | 'fair' | 'poor' | 'unknown';

export interface VerdictInputs {
  /** The call's score (1–5), null before any window was scored. */
  score: number | null;
  /** The severities of the call's issues, consequences included (a receiver's freeze is the call's however it came). */
  severities: readonly ('info' | 'warning' | 'critical')[];
}

/** Under this score a call without an issue is still not good: something no detector names made it so. */
const UNEXPLAINED_SCORE = 2;

/**
 * The call's one verdict, wherever it is shown: from what the diagnosis found (harm a person notices),
 * then the score. The score alone does not make a call poor: a clean call's score depends on its source
 * (a 10-fps camera or a small picture scores under a 30-fps 720p one), which the call page explains.
 */
export function callVerdict({ score, severities }: VerdictInputs): Verdict {
  if (severities.includes('critical')) return 'poor';
  if (severities.includes('warning')) return 'fair';
  if (score === null) return severities.length ? 'good' : 'unknown';
  return score < UNEXPLAINED_SCORE ? 'fair' : 'good';
}

/** What the verdict is based on, for the people who read it. */
export const VERDICT_RULE = `From the diagnosis: poor if the call had a critical issue, fair if a warning (or, with none, a score under ${UNEXPLAINED_SCORE}), good otherwise. The score (1–5) rates the picture and sound received; a clean call's depends on its source (frame rate, resolution), so it does not decide alone.`;
