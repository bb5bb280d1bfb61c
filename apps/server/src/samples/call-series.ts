import { fairnessOverTime, participantRates, type StreamOwner } from '@rtcscope/metrics';
import { type Fairness, type FieldSpec, type Series, type SeriesQuery, STREAM_FIELDS } from '@rtcscope/protocol';
import type { Database } from '../db/database.js';
import { findCall } from './call-record.js';
import { bucketFor, readSeries, readStreamRates, type SampleScope } from './series.js';

/** A call's samples in the range asked for, and whose each stream is. */
type CallScope = SampleScope & { owners: Map<number, StreamOwner> };

/** The call's streams and connections and the range asked for; null without such a call, 'reversed' for a range that ends before it starts. */
async function callScope(db: Database, projectId: string, callId: string, query: SeriesQuery): Promise<CallScope | null | 'reversed'> {
  const call = await findCall(db, projectId, callId);
  if (!call) return null;
  const from = query.from ?? call.startedAt.getTime();
  const to = query.to ?? (call.endedAt ?? new Date()).getTime();
  if (to < from) return 'reversed';
  const { rows } = await db.pool.query<{
    stream_id: number | null;
    connection_id: number;
    participant: string;
    direction: 'in' | 'out' | null;
  }>(
    `SELECT s.id AS stream_id, c.id AS connection_id, p.external_id AS participant, s.direction
     FROM participant p JOIN connection c ON c.participant_id = p.id LEFT JOIN stream s ON s.connection_id = c.id
     WHERE p.call_id = $1 AND p.project_id = $2`,
    [call.id, projectId],
  );
  const owners = new Map<number, StreamOwner>();
  for (const r of rows)
    if (r.stream_id !== null && r.direction !== null) owners.set(r.stream_id, { participant: r.participant, direction: r.direction });
  return {
    from,
    to,
    rolledUp: call.endedAt !== null && call.rolledUpAt !== null,
    streamIds: [...owners.keys()],
    connectionIds: [...new Set(rows.map((r) => r.connection_id))],
    owners,
  };
}

/** A call's series, averaged into buckets when the range is long; null without such a call. */
export async function loadSeries(
  db: Database,
  projectId: string,
  callId: string,
  query: SeriesQuery,
  specs: readonly FieldSpec[] = STREAM_FIELDS,
): Promise<Series | null | 'reversed'> {
  const scope = await callScope(db, projectId, callId, query);
  if (scope === null || scope === 'reversed') return scope;
  return readSeries(db, scope, query.maxPoints ?? 1200, specs);
}

/** Jain's index per interval over a call's participants' sending and receiving rates; null without such a call. */
export async function loadFairness(
  db: Database,
  projectId: string,
  callId: string,
  query: SeriesQuery,
): Promise<Fairness | null | 'reversed'> {
  const scope = await callScope(db, projectId, callId, query);
  if (scope === null || scope === 'reversed') return scope;
  const bucketMs = bucketFor(scope.from, scope.to, query.maxPoints ?? 1200);
  // The rates come per stream and interval already: each interval is its own.
  const rates = participantRates(
    await readStreamRates(db, scope, bucketMs),
    (id) => scope.owners.get(id),
    (ts) => ts,
  );
  return { bucketMs, points: fairnessOverTime(rates) };
}
