/** Pearson's correlation of two equally long series, or null when either does not vary (or fewer than 2 pairs). */
export function pearson(xs: readonly number[], ys: readonly number[]): number | null {
  const n = xs.length;
  if (n !== ys.length) throw new Error(`pearson: ${n} values against ${ys.length}`);
  if (n < 2) return null;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let cov = 0;
  let vx = 0;
  let vy = 0;
  for (let k = 0; k < n; k++) {
    const [dx, dy] = [xs[k]! - mx, ys[k]! - my];
    cov += dx * dy;
    vx += dx * dx;
    vy += dy * dy;
  }
  return vx > 0 && vy > 0 ? cov / Math.sqrt(vx * vy) : null;
}

/** Each value's rank from 1, ties sharing the mean of the ranks they span. */
export function ranks(xs: readonly number[]): number[] {
  const order = xs.map((x, k) => [x, k] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(xs.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
    for (let k = i; k <= j; k++) out[order[k]![1]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return out;
}

/** Spearman's rank correlation: Pearson's of the ranks (1: the two rise together, −1: one falls as the other rises). */
export function spearman(xs: readonly number[], ys: readonly number[]): number | null {
  return pearson(ranks(xs), ranks(ys));
}

export interface IntervalOptions {
  /**
   * Which group each pair belongs to: resampled whole, as the windows of one call are not independent of
   * each other (a call's network and encoder shape all its windows). Each pair its own group where absent.
   */
  groups?: readonly string[];
  /** Resamples drawn. */
  resamples?: number;
  /** The interval's coverage, e.g. 0.95. */
  level?: number;
  /** The resampling's seed: the same data give the same interval on every machine. */
  seed?: number;
}

/** A seeded uniform generator on [0, 1) (a linear congruential one: enough to draw resamples). */
function uniform(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * A bootstrap interval of a correlation (the percentile method): groups drawn with replacement as many
 * times as there are groups, the correlation of each resample, and the middle `level` of them. Null
 * where fewer than two groups, or where too few resamples had a correlation at all.
 */
export function bootstrapInterval(
  correlation: (xs: readonly number[], ys: readonly number[]) => number | null,
  xs: readonly number[],
  ys: readonly number[],
  { groups, resamples = 2000, level = 0.95, seed = 1 }: IntervalOptions = {},
): [number, number] | null {
  if (xs.length !== ys.length || (groups && groups.length !== xs.length))
    throw new Error(`bootstrapInterval: ${xs.length} values against ${ys.length}${groups ? ` and ${groups.length} groups` : ''}`);
  const members = new Map<string, number[]>();
  xs.forEach((_, k) => {
    const g = groups?.[k] ?? String(k);
    members.set(g, [...(members.get(g) ?? []), k]);
  });
  const drawn = [...members.values()];
  if (drawn.length < 2) return null;
  const rnd = uniform(seed);
  const found: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const [rx, ry]: [number[], number[]] = [[], []];
    for (let g = 0; g < drawn.length; g++)
      for (const k of drawn[Math.floor(rnd() * drawn.length)]!) {
        rx.push(xs[k]!);
        ry.push(ys[k]!);
      }
    const c = correlation(rx, ry);
    if (c !== null) found.push(c);
  }
  if (found.length < resamples / 2) return null;
  found.sort((a, b) => a - b);
  const at = (q: number) => found[Math.min(found.length - 1, Math.max(0, Math.round(q * (found.length - 1))))]!;
  return [at((1 - level) / 2), at((1 + level) / 2)];
}
