import { endsConnection, type StreamFacts, streamStates } from '@rtcscope/diagnosis';
import type { ParticipantInfo } from '@rtcscope/protocol';
import { type MediaSection, parseNegotiated } from '@rtcscope/protocol/fields';
import type { Database } from '../db/database.js';
import type { CallRecord } from '../samples/call-record.js';
import { pointsSql } from '../samples/points.js';

/**
 * What each of a call's connections and streams carried over it, as its page and the API show it: what
 * each connection negotiated, values a stream's samples held outside the field table, when it carried
 * media, and its state (`streamStates`, the diagnosis' own rule), from one pass over its samples and its
 * connections' events. Only the call's page reads it: the diagnosis and the insights judge the samples themselves.
 */
export async function withStreamLives(db: Database, record: CallRecord): Promise<ParticipantInfo[]> {
  const { row, participants } = record;
  const streamIds = participants.flatMap((p) => p.connections.flatMap((c) => c.streams.map((s) => s.id)));
  const [stored, { ended, media }] = await Promise.all([
    storedFacts(db, streamIds, row.startedAt, row.endedAt ?? new Date()),
    connectionLives(db, row.id),
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
      media: media.get(String(c.id)) ?? null,
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
 * By connection id, from a call's events as the diagnosis is told of them: when each last ended
 * (`endsConnection`: its page closed it, its far end hung up) and what it last negotiated; connections
 * that never did are left out.
 */
async function connectionLives(
  db: Database,
  callDbId: bigint,
): Promise<{ ended: Map<string, number>; media: Map<string, MediaSection[]> }> {
  const events = await db.prisma.callEvent.findMany({
    where: { callId: callDbId, connectionId: { not: null }, type: { in: ['connection-state', 'dtls-state', 'media-negotiated'] } },
    select: { connectionId: true, type: true, detail: true, ts: true },
    orderBy: { ts: 'asc' },
  });
  const ended = new Map<string, number>();
  const media = new Map<string, MediaSection[]>();
  for (const e of events) {
    const id = String(e.connectionId);
    if (endsConnection(e.type, e.detail)) ended.set(id, Math.max(ended.get(id) ?? 0, e.ts.getTime()));
    const sections = e.type === 'media-negotiated' ? parseNegotiated(e.detail) : null;
    if (sections) media.set(id, sections);
  }
  return { ended, media };
}
