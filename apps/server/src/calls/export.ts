import type { CallDetail, CallEvents, Series } from '@rtcscope/protocol';
import { STREAM_FIELDS, toCsvText } from '@rtcscope/protocol';
import type { Database } from '../db/database.js';
import { loadEvents } from '../samples/call-record.js';
import { loadCallDetail } from './read.js';
import { loadSeries } from '../samples/call-series.js';

/** Points per stream in an export: a call up to ~2.8 hours comes out second by second. */
const EXPORT_POINTS = 10_000;

/** What a call's exports are made of: the call, its samples (second by second, or averaged past EXPORT_POINTS) and events. */
export interface CallExport {
  detail: CallDetail;
  series: Series;
  events: CallEvents;
}

/** A call's export data, or null when the project has no such call. */
export async function loadCallExport(db: Database, projectId: string, callId: string): Promise<CallExport | null> {
  const [detail, events] = await Promise.all([loadCallDetail(db, projectId, callId), loadEvents(db, projectId, callId)]);
  if (!detail || !events) return null;
  const series = await loadSeries(db, projectId, callId, { maxPoints: EXPORT_POINTS });
  if (series === null || series === 'reversed') return null;
  return { detail, series, events };
}

/**
 * A call's samples as CSV: one row per stream per interval, the stream named by its participant,
 * direction, kind and SSRC, every field with its unit in the header. A call longer than EXPORT_POINTS
 * seconds comes out averaged into buckets (the interval column says how long).
 */
export function callCsv({ detail, series }: CallExport): string {
  const streams = new Map(
    detail.participants.flatMap((p) =>
      p.connections.flatMap((c) => c.streams.map((s) => [s.id, [p.id, s.direction, s.kind, s.ssrc] as const])),
    ),
  );
  const header = [
    'time (UTC)',
    'participant',
    'direction',
    'kind',
    'ssrc',
    'interval (ms)',
    ...STREAM_FIELDS.map((f) => `${f.name} (${f.unit})`),
  ];
  const rows = series.streams.map((p) => [new Date(p.ts).toISOString(), ...streams.get(p.id)!, series.bucketMs, ...p.v]);
  return toCsvText(header, rows);
}
