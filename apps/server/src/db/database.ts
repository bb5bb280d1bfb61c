import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { migrate } from './migrate.js';
import { Partitions } from './partitions.js';

export interface Database {
  /** Hot paths (ingest, series) use SQL directly: one round trip per batch. */
  pool: pg.Pool;
  /** The relational model (projects, keys, calls and what belongs to them). */
  prisma: PrismaClient;
  partitions: Partitions;
  close(): Promise<void>;
}

// Counts and sizes come back as int8/numeric strings; everything rtcscope reads fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export async function openDatabase(url: string, options: { migrate?: boolean; poolSize?: number } = {}): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 });
  pool.on('error', () => {}); // an idle client that dies is replaced on next use
  if (options.migrate !== false) await migrate(pool);
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 4 }) });
  return {
    pool,
    prisma,
    partitions: new Partitions(pool),
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}
