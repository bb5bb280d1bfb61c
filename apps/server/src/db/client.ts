import type pg from 'pg';

/**
 * Runs `work` on a pooled client of its own (for a transaction or a session lock). While checked out,
 * a client has no error listener of the pool's: were the database to end the connection between two
 * queries (it stops with the process on SIGTERM), the error would end the process. Here it is kept,
 * and the client discarded instead of returned.
 */
export async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = err;
  };
  client.on('error', onError);
  try {
    return await work(client);
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

/** Runs `work` in one transaction on a client of its own: committed if it returns, rolled back if it throws. */
export function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withClient(pool, async (client) => {
    await client.query('BEGIN');
    try {
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  });
}

/**
 * Whether a statement lost a race with a deletion that PostgreSQL settled against it: a row it refers to
 * went meanwhile (foreign key violation) or the two locked each other (deadlock, one of them ended). The
 * work is moot or is done again later, not a fault to log.
 */
export function lostToDeletion(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === '23503' || code === '40P01';
}
