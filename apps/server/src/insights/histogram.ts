/**
 * A metric's values as a sparse histogram: exact count and sum (so the mean is exact), and counts per
 * logarithmic bucket, each 2 % wide, so percentiles read from it are within 1 % of the values'. Days of
 * them add up, which is what lets the insights of a month read 30 rows per segment instead of every
 * participant. Bucket k > 0 holds values in [BASE·RATIO^k, BASE·RATIO^(k+1)); bucket 0 holds everything
 * up to BASE·RATIO (zero included).
 */
export interface Histogram {
  n: number;
  sum: number;
  h: Record<string, number>;
}

export const HISTOGRAM_BASE = 0.001;
export const HISTOGRAM_RATIO = 1.02;

/** The bucket of a value, as SQL computes it over a column (insights/day-rollup.ts). */
export const bucketSql = (column: string) =>
  `CASE WHEN ${column} < ${HISTOGRAM_BASE * HISTOGRAM_RATIO} THEN 0 ELSE floor(ln(${column} / ${HISTOGRAM_BASE}) / ln(${HISTOGRAM_RATIO}))::int END`;

export function bucketOf(v: number): number {
  return v < HISTOGRAM_BASE * HISTOGRAM_RATIO ? 0 : Math.floor(Math.log(v / HISTOGRAM_BASE) / Math.log(HISTOGRAM_RATIO));
}

/** The value a bucket stands for: its geometric middle (0 for the lowest). */
function valueOf(bucket: number): number {
  return bucket === 0 ? 0 : HISTOGRAM_BASE * HISTOGRAM_RATIO ** (bucket + 0.5);
}

export const emptyHistogram = (): Histogram => ({ n: 0, sum: 0, h: {} });

export function addTo(into: Histogram, more: Histogram): void {
  into.n += more.n;
  into.sum += more.sum;
  for (const [bucket, count] of Object.entries(more.h)) into.h[bucket] = (into.h[bucket] ?? 0) + count;
}

/**
 * The q-quantile as PostgreSQL's percentile_cont reads sorted values (linear between the two nearest
 * ranks), each value standing at its bucket's middle; null for no values.
 */
export function quantile(hist: Histogram, q: number): number | null {
  if (hist.n === 0) return null;
  const buckets = Object.entries(hist.h)
    .map(([b, count]) => [Number(b), count] as const)
    .sort((a, b) => a[0] - b[0]);
  const at = q * (hist.n - 1);
  const valueAtRank = (rank: number) => {
    let seen = 0;
    for (const [b, count] of buckets) {
      seen += count;
      if (rank < seen) return valueOf(b);
    }
    return valueOf(buckets[buckets.length - 1]![0]);
  };
  const low = Math.floor(at);
  const lo = valueAtRank(low);
  return lo + (at - low) * (valueAtRank(Math.min(low + 1, hist.n - 1)) - lo);
}
