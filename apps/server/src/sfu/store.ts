import type pg from 'pg';
import type { SfuEventDetail, SfuEventKind, SfuEventRow } from './janus-events.js';

// SQL through `pg`: a batch of events is one `unnest` insert, a retransmission dropped by `ON CONFLICT`.

/** The SFU events' store: written as an SFU reports them, read with the call whose streams name the room. */

/** Most events a call's view reads: a room of a few hundred members, each joining and leaving a few times. */
const MAX_READ = 20_000;

/** Stores what is new of `rows` (a retransmission matches the row it repeats and is not stored again); how many were. */
export async function storeSfuEvents(db: pg.Pool, projectId: string, sfu: string, rows: readonly SfuEventRow[]): Promise<number> {
  if (!rows.length) return 0;
  const { rowCount } = await db.query(
    `INSERT INTO sfu_event (project_id, sfu, room, session, handle, at, kind, feed, detail)
     SELECT $1, $2, r.room, r.session, r.handle, timestamptz 'epoch' + r.at_us * interval '1 microsecond', r.kind, r.feed, r.detail
     FROM unnest($3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::jsonb[]) AS r(room, session, handle, at_us, kind, feed, detail)
     ON CONFLICT (project_id, sfu, session, handle, at, kind, feed) DO NOTHING`,
    [
      projectId,
      sfu,
      rows.map((r) => r.room),
      rows.map((r) => r.session),
      rows.map((r) => r.handle),
      rows.map((r) => String(r.atUs)),
      rows.map((r) => r.kind),
      rows.map((r) => r.feed),
      rows.map((r) => JSON.stringify(r.detail)),
    ],
  );
  return rowCount ?? 0;
}

/**
 * The events of `rooms` between `from` and `to`, with the connection events of the handles they name
 * (which name no room themselves). A room's number may be used again another day: the window keeps
 * another call's members out.
 */
export async function roomEvents(
  db: pg.Pool,
  projectId: string,
  sfu: string,
  rooms: readonly string[],
  from: Date,
  to: Date,
): Promise<SfuEventRow[]> {
  if (!rooms.length) return [];
  const { rows } = await db.query<{
    room: string | null;
    session: string;
    handle: string;
    at_us: string;
    kind: SfuEventKind;
    feed: string;
    detail: SfuEventDetail;
  }>(
    `WITH in_room AS (
       SELECT * FROM sfu_event WHERE project_id = $1 AND sfu = $2 AND room = ANY($3::text[]) AND at BETWEEN $4 AND $5
     )
     SELECT room, session, handle, (extract(epoch FROM at) * 1000000)::bigint::text AS at_us, kind, feed, detail FROM (
       SELECT * FROM in_room
       UNION ALL
       SELECT e.* FROM sfu_event e
       WHERE e.project_id = $1 AND e.sfu = $2 AND e.room IS NULL AND e.at BETWEEN $4 AND $5
         AND e.handle IN (SELECT handle FROM in_room WHERE handle <> '')
     ) events ORDER BY at LIMIT ${MAX_READ}`,
    [projectId, sfu, rooms, from, to],
  );
  return rows.map(({ at_us, ...r }) => ({ ...r, atUs: Number(at_us) }));
}

/** Events deleted per statement: each stays short, so nothing waits long on the locks it holds. */
const EXPIRE_CHUNK = 10_000;

/** Deletes the SFU events older than their project keeps its samples; how many went. Idempotent, so every node may run it. */
export async function dropExpiredSfuEvents(db: pg.Pool): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await db.query(
      `DELETE FROM sfu_event WHERE id IN (
         SELECT e.id FROM sfu_event e JOIN project p ON p.id = e.project_id
         WHERE e.at < now() - make_interval(days => p.retention_days) LIMIT ${EXPIRE_CHUNK})`,
    );
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < EXPIRE_CHUNK) return total;
  }
}
