import { type CallSource, INSIGHT_METRICS, type InsightMetric } from '@rtcscope/protocol';
import { SOURCE_FILTER } from '../calls/sources.js';

/** Each metric's column in `participant_summary`. */
export const COLUMNS: Record<InsightMetric, string> = {
  score: 'score',
  rttMs: 'rtt_ms',
  lossPct: 'loss_pct',
  jitterMs: 'jitter_ms',
  sentKbps: 'sent_kbps',
  receivedKbps: 'received_kbps',
  fps: 'fps',
  height: 'height',
  freezes: 'freezes',
  setupMs: 'setup_ms',
};
export const METRICS = Object.keys(INSIGHT_METRICS) as InsightMetric[];

/** What a breakdown groups by; a metadata key is a query parameter ($4), never SQL text. */
export const SEGMENTS: Record<string, string> = {
  none: 'NULL::text',
  browser: 'p.browser',
  browserVersion: "p.browser || ' ' || p.browser_version",
  os: 'p.os',
  deviceType: 'p.device_type',
  sdkVersion: 'p.sdk_version',
  country: 'p.country',
  path: "s.local_candidate_type || '/' || s.local_protocol",
};

/**
 * The participants' summaries of a period with each one's segment of the breakdown, as the CTE `x`;
 * its parameters start with the project ($1) and the period ($2, $3); a metadata key is $4. Live
 * traffic unless another source is asked for.
 */
export function segmentScope(
  projectId: string,
  breakdown: string,
  from: number,
  to: number,
  source: CallSource = 'live',
): { scope: string; params: unknown[] } {
  const key = breakdown.startsWith('metadata:') ? breakdown.slice('metadata:'.length) : null;
  const segment = key === null ? SEGMENTS[breakdown]! : 'coalesce(p.metadata ->> $4::text, c.metadata ->> $4::text)';
  return {
    scope: `WITH x AS (
      SELECT ${segment} AS segment, s.* FROM participant_summary s JOIN participant p ON p.id = s.participant_id JOIN call c ON c.id = s.call_id
      WHERE s.project_id = $1 AND s.started_at >= to_timestamp($2::float8 / 1000.0) AND s.started_at < to_timestamp($3::float8 / 1000.0)
        AND ${SOURCE_FILTER[source]})`,
    params: [projectId, from, to, ...(key === null ? [] : [key])],
  };
}
