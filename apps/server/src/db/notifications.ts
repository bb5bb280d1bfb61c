import pg from 'pg';

const RETRY_MS = [500, 1000, 2000, 5000];

export interface Listener {
  close(): Promise<void>;
}

/**
 * Hears PostgreSQL notices on `channel` over a connection of its own (a pooled one would go back to
 * the pool and stop listening). A lost connection is made again, with a growing pause; notices sent
 * while it was away are gone, so `onReconnect` runs after each return for the caller to catch up.
 */
export function listen(
  url: string,
  channel: string,
  handlers: { onNotice: (payload: string) => void; onReconnect: () => void; onLost: (err: Error) => void },
): Listener {
  let client: pg.Client | null = null;
  let closed = false;
  let failures = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const gone = new WeakSet<pg.Client>();

  const connect = async (again: boolean) => {
    // A connection attempt that hangs would hold up a server's shutdown, which waits for this one.
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    c.on('notification', (n) => n.channel === channel && handlers.onNotice(n.payload ?? ''));
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c, new Error('the connection ended')));
    try {
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      return lost(c, err as Error);
    }
    if (closed) return void c.end().catch(() => {});
    client = c;
    failures = 0;
    if (again) handlers.onReconnect();
  };

  const lost = (c: pg.Client, err: Error) => {
    // A connection that fails says so more than once (its error, its end, the failed query).
    if (closed || gone.has(c)) return;
    gone.add(c);
    if (client === c) client = null;
    void c.end().catch(() => {});
    handlers.onLost(err);
    clearTimeout(retry);
    retry = setTimeout(() => void connect(true), RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]);
  };

  const first = connect(false);
  return {
    close: async () => {
      await first;
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
