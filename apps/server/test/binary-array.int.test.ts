import { describe, expect, it } from 'vitest';
import { binaryArray } from '../src/db/binary-array.js';
import { freshDatabase } from './harness.js';

describe('binary array parameters', () => {
  it('reach PostgreSQL as the values they were, NULLs included, and float4s as the text path rounds them', async () => {
    const { db, drop } = await freshDatabase();
    try {
      const int8 = [0, 1, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER, -5, null];
      const int4 = [0, 2_147_483_647, -2_147_483_648, null, 10_000_000];
      const float4 = [0, 151.6, 0.01, 9_999_999.9, 123_456.7, null, 1e-7];
      const float8 = [1_795_396_000_000.5, -0.25, null];
      const bool = [true, false, null];
      const { rows } = await db.pool.query<Record<string, unknown>>(
        `SELECT $1::bigint[]::text AS int8, $2::int[]::text AS int4, $3::real[] = $4::text::real[] AS float4_same,
           $5::float8[]::text AS float8, $6::boolean[]::text AS bool`,
        [
          binaryArray('int8', int8),
          binaryArray('int4', int4),
          binaryArray('float4', float4),
          `{${float4.map((v) => v ?? 'NULL').join(',')}}`,
          binaryArray('float8', float8),
          binaryArray('bool', bool),
        ],
      );
      const text = (xs: readonly unknown[]) => `{${xs.map((v) => v ?? 'NULL').join(',')}}`;
      expect(rows[0]).toEqual({
        int8: text(int8),
        int4: text(int4),
        float4_same: true,
        float8: text(float8),
        bool: '{t,f,NULL}',
      });
    } finally {
      await drop();
    }
  });

  it('is refused when its elements are not of the type the statement casts to', async () => {
    const { db, drop } = await freshDatabase();
    try {
      await expect(db.pool.query('SELECT $1::bigint[]', [binaryArray('int4', [1, 2])])).rejects.toThrow(
        /element type 23 \(integer\) instead of expected 20 \(bigint\)/,
      );
    } finally {
      await drop();
    }
  });
});
