import { expect } from '@playwright/test';
import pg from 'pg';

export interface StoredRow {
  participant: string;
  direction: string;
  kind: string;
  streamId: number;
  seq: number;
  ts: number;
  kbps: number | null;
  fps: number | null;
  width: number | null;
  height: number | null;
  rttMs: number | null;
  packetsLost: number | null;
  audioLevel: number | null;
  outOfRange: number | null;
}

/** Reads what the server stored for one call, straight from PostgreSQL, to check exactly-once. */
export async function storedRows(databaseUrl: string, callId: string): Promise<StoredRow[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<StoredRow>(
      `SELECT p.external_id AS participant, s.direction, s.kind, s.id::float8 AS "streamId", ss.seq,
              (extract(epoch FROM ss.ts) * 1000)::float8 AS ts, ss.kbps, ss.fps, ss.width, ss.height, ss.rtt_ms AS "rttMs",
              ss.packets_lost AS "packetsLost", ss.audio_level AS "audioLevel", ss.out_of_range AS "outOfRange"
       FROM stream_sample ss JOIN stream s ON s.id = ss.stream_id JOIN connection c ON c.id = s.connection_id
       JOIN participant p ON p.id = c.participant_id JOIN call k ON k.id = p.call_id
       WHERE k.external_id = $1 ORDER BY ss.stream_id, ss.seq`,
      [callId],
    );
    return rows;
  } finally {
    await client.end();
  }
}

/**
 * What the server stored for a call once every one of `participants` has a sample stored after `ts`: the
 * SDK sends in order, so everything before it is in (a window that ends at `ts` is whole).
 */
export async function storedRowsThrough(
  databaseUrl: string,
  callId: string,
  participants: readonly string[],
  ts: number,
): Promise<StoredRow[]> {
  let rows: StoredRow[] = [];
  const through = async () => {
    rows = await storedRows(databaseUrl, callId);
    return participants.filter((p) => !rows.some((r) => r.participant === p && r.ts > ts));
  };
  await expect
    .poll(through, { timeout: 15_000, message: `samples after ${new Date(ts).toISOString()} stored for every participant` })
    .toEqual([]);
  return rows;
}
