import type pg from 'pg';
import { inTransaction } from '../db/client.js';
import { purgeSamples } from '../samples/purge.js';

// SQL through `pg`: calls are claimed in batches with `FOR UPDATE SKIP LOCKED`, so nodes share the work.

/** Calls deleted per transaction: each stays short, so ingest never waits long behind it. */
const BATCH = 100;

/**
 * Deletes the calls made from imported recordings that were imported longer ago than their project
 * keeps samples, with their recordings, participants, events and issues (through the foreign keys),
 * then their samples (stored under the imported tier, whose partitions retention leaves alone).
 * Returns how many calls went. Idempotent, so every node may run it.
 */
export async function expireImportedCalls(pool: pg.Pool, now = Date.now()): Promise<number> {
  let expired = 0;
  for (;;) {
    const owners = await inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ id: string }>(
        `SELECT c.id FROM call c JOIN project p ON p.id = c.project_id
         WHERE c.imported_at IS NOT NULL AND c.imported_at < to_timestamp($1 / 1000.0) - make_interval(days => p.retention_days)
         ORDER BY c.imported_at LIMIT ${BATCH} FOR UPDATE OF c SKIP LOCKED`,
        [now],
      );
      if (!rows.length) return null;
      const ids = rows.map((r) => r.id);
      const of = async (sql: string) => (await client.query<{ id: number }>(sql, [ids])).rows.map((r) => r.id);
      const connections = await of(
        'SELECT k.id FROM connection k JOIN participant p ON p.id = k.participant_id WHERE p.call_id = ANY ($1::bigint[])',
      );
      const streams = await of(
        'SELECT s.id FROM stream s JOIN connection k ON k.id = s.connection_id JOIN participant p ON p.id = k.participant_id WHERE p.call_id = ANY ($1::bigint[])',
      );
      await client.query('DELETE FROM call WHERE id = ANY ($1::bigint[])', [ids]);
      return { calls: ids.length, streams, connections };
    });
    if (!owners) return expired;
    await purgeSamples(pool, owners);
    expired += owners.calls;
  }
}
