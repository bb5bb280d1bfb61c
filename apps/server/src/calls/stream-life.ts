import { endsConnection, type StreamFacts, streamStates } from '@rtcscope/diagnosis';
import type { ParticipantInfo } from '@rtcscope/protocol';
import type { Database } from '../db/database.js';
import type { CallRecord } from '../samples/call-record.js';
import { pointsSql } from '../samples/points.js';

/**
 * What each of a call's streams carried over it, as its page and the API show it: values its samples held
 * outside the field table, when it carried media, and its state (`streamStates`, the diagnosis' own rule),
 * from one pass over its samples and its connections' end events. Only the call's page reads it: the
 * diagnosis and the insights judge the samples themselves.
 */
export async function withStreamLives(db: Database, record: CallRecord): Promise<ParticipantInfo[]> {
  const { row, participants } = record;
  const streamIds = participants.flatMap((p) => p.connections.flatMap((c) => c.streams.map((s) => s.id)));
  const [stored, ended] = await Promise.all([
    storedFacts(db, streamIds, row.startedAt, row.endedAt ?? new Date()),
    connectionsEnded(db, row.id),
  ]);
  const factsOf = (id: number) => stored.get(String(id))?.facts ?? NO_SAMPLES;
  const states = streamStates(
    participants.flatMap((p) =>
      p.connections.flatMap((c) =>
        c.streams.map((s) => ({
          id: s.id,
          participant: p.id,
          connection: c.id,
          direction: s.direction,
          ...factsOf(s.id),
          connectionEndedAt: ended.get(String(c.id)) ?? null,
        })),
      ),
    ),
  );
  return participants.map((p) => ({
    ...p,
    connections: p.connections.map((c) => ({
      ...c,
      streams: c.streams.map((s) => ({
        ...s,
        outOfRange: stored.get(String(s.id))?.outOfRange ?? 0,
        state: states.get(s.id)!,
        activeFrom: factsOf(s.id).firstActiveAt,
        activeUntil: factsOf(s.id).lastActiveAt,
      })),
    })),
  }));
}

/** `carriesMedia` (the diagnosis' rule) as SQL over a stream point's columns; recordings.int.test.ts holds them to one answer. */
export const CARRIES_MEDIA_SQL = '(coalesce(kbps, 0) > 0 OR coalesce(fps, 0) > 0)';

/** What each stream's samples held over the call: values outside the field table (stored as null) and when it carried media. */
interface StoredFacts {
  outOfRange: number;
  facts: Omit<StreamFacts, 'id' | 'participant' | 'connection' | 'direction' | 'connectionEndedAt'>;
}

const NO_SAMPLES: StoredFacts['facts'] = { firstActiveAt: null, lastActiveAt: null, lastSaidAt: null, intervalMs: null };

/** Each stream's `StoredFacts` by stream id, in one pass over its samples; streams without any are left out. */
async function storedFacts(db: Database, streamIds: readonly number[], from: Date, to: Date): Promise<Map<string, StoredFacts>> {
  if (!streamIds.length) return new Map();
  const { rows } = await db.pool.query<{
    id: string;
    out_of_range: number;
    first_active: Date | null;
    last_active: Date | null;
    last_said: Date | null;
    first_sample: Date;
    last_sample: Date;
    n: number;
  }>(
    `SELECT stream_id::text AS id, coalesce(sum(out_of_range), 0)::int AS out_of_range,
            min(ts) FILTER (WHERE ${CARRIES_MEDIA_SQL}) AS first_active, max(ts) FILTER (WHERE ${CARRIES_MEDIA_SQL}) AS last_active,
            max(ts) FILTER (WHERE kbps IS NOT NULL OR fps IS NOT NULL) AS last_said,
            min(ts) AS first_sample, max(ts) AS last_sample, count(*)::int AS n
     FROM ${pointsSql('stream', ['out_of_range', 'kbps', 'fps'], '$1::bigint[]', '$2::timestamptz', '$3::timestamptz')}
     GROUP BY stream_id`,
    [streamIds.map(String), from, new Date(to.getTime() + 60_000)],
  );
  return new Map(
    rows.map((r) => [
      r.id,
      {
        outOfRange: r.out_of_range,
        facts: {
          firstActiveAt: r.first_active?.getTime() ?? null,
          lastActiveAt: r.last_active?.getTime() ?? null,
          lastSaidAt: r.last_said?.getTime() ?? null,
          intervalMs: r.n > 1 ? (r.last_sample.getTime() - r.first_sample.getTime()) / (r.n - 1) : null,
        },
      },
    ]),
  );
}

/**
 * When each of a call's connections last ended (`endsConnection`: its page closed it, its far end hung
 * up), by connection id; connections that never did are left out. Read from its events, as the
 * diagnosis is told of them.
 */
async function connectionsEnded(db: Database, callDbId: bigint): Promise<Map<string, number>> {
  const events = await db.prisma.callEvent.findMany({
    where: { callId: callDbId, connectionId: { not: null }, type: { in: ['connection-state', 'dtls-state'] } },
    select: { connectionId: true, type: true, detail: true, ts: true },
  });
  const out = new Map<string, number>();
  for (const e of events)
    if (endsConnection(e.type, e.detail)) out.set(String(e.connectionId), Math.max(out.get(String(e.connectionId)) ?? 0, e.ts.getTime()));
  return out;
}
