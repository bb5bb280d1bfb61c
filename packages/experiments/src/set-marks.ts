/**
 * What the lab set on a link, noted in the call's own event stream (as the participant's metadata
 * `labSet`, which the SDK records as a `metadata` event), so a dashboard can draw "set" next to
 * "measured" for a lab call. Written by the lab's peers, read by the dashboard and the tests.
 */
export interface LabSetMark {
  link: string;
  rateKbps: number | null;
  delayMs: number;
  lossPct: number | null;
}

/** A mark with the time its event was recorded. */
export interface LabSet extends LabSetMark {
  ts: number;
}

/** The participant metadata that carries a mark (a JSON text: metadata values are flat). */
export function labSetMetadata(mark: LabSetMark): { labSet: string } {
  return { labSet: JSON.stringify(mark) };
}

interface CallEventLike {
  ts: number;
  type: string;
  detail: string | null;
}

/** The mark a call event carries, or null (any other event, or metadata that is not a mark). */
export function labSetOf(event: CallEventLike): LabSet | null {
  if (event.type !== 'metadata' || !event.detail?.includes('labSet')) return null;
  try {
    const { labSet } = JSON.parse(event.detail) as { labSet?: unknown };
    return typeof labSet === 'string' ? { ...(JSON.parse(labSet) as LabSetMark), ts: event.ts } : null;
  } catch {
    return null;
  }
}

/** The marks a call's events carry, in time order. */
export function labSetsOf(events: readonly CallEventLike[]): LabSet[] {
  return events.flatMap((e) => labSetOf(e) ?? []).sort((a, b) => a.ts - b.ts);
}
