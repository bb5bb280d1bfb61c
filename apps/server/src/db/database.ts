import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { type Prisma, PrismaClient } from '../generated/prisma/client.js';
import { migrate } from './migrate.js';
import { lowerPriority, type Priority } from './priority.js';

/**
 * Prisma Client, or one of its transactions: what a store function of the relational model takes, so
 * that its caller decides what commits together (a change and its audit-log entry).
 */
export type Db = PrismaClient | Prisma.TransactionClient;

export interface Database {
  /** For connections of their own (listening for notices). */
  url: string;
  /** Hot paths (ingest, series) use SQL directly: one round trip per batch. */
  pool: pg.Pool;
  /** The relational model: organizations, people, projects, keys, alerts, the lab, calls and what belongs to them. */
  prisma: PrismaClient;
  /**
   * For bulk background work that holds no lock anyone waits on (compaction's chunks, live calls'
   * summaries): one connection, at the lowest CPU priority when PostgreSQL runs on this machine
   * (`priority` says whether it does, once connected), so that work takes only CPU time that ingest and
   * reads leave over.
   */
  background: { pool: pg.Pool; priority: Priority | null };
  close(): Promise<void>;
}

// Counts and sizes come back as int8/numeric strings; everything rtcscope reads fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export async function openDatabase(url: string, options: { migrate?: boolean; poolSize?: number } = {}): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 });
  pool.on('error', () => {}); // an idle client that dies is replaced on next use
  if (options.migrate !== false) await migrate(pool);
  // Prisma's defaults (2 s to start a transaction, 5 s to finish it) are short for a project's deletion, which waits behind ingest's locks.
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: url, max: 4 }),
    transactionOptions: { maxWait: 10_000, timeout: 30_000 },
  });
  const background: Database['background'] = {
    pool: new pg.Pool({
      connectionString: url,
      max: 1,
      idleTimeoutMillis: 0,
      onConnect: async (client) => {
        background.priority = await lowerPriority(client);
      },
    }),
    priority: null,
  };
  background.pool.on('error', () => {});
  // Connected now, so that whether it runs at the lowest priority is known (and logged) from the start.
  await background.pool.query('SELECT 1');
  return {
    url,
    pool,
    prisma,
    background,
    close: async () => {
      await prisma.$disconnect();
      await Promise.all([pool.end(), background.pool.end()]);
    },
  };
}
