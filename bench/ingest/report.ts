import type { AlertTimes, Insights, WaitTally } from './scrapers.js';

/** What one measurement window saw (see `measure` in ingest.ts). */
export interface Measurement {
  rate: number;
  p50: number;
  p99: number;
  live50: number;
  live95: number;
  failed: number;
  failures: [string, number][];
  serverCpu: number;
  dbCpu: number;
  generatorCpu: number;
  rssMb: number;
  loopStallMs: number;
  gcMsPerS: number;
  majorGcMsPerS: number;
  longGcs: number;
  checkpoints: number;
  fullPageImages: number;
  walMbPerS: number;
  blocks: number;
  cpuPressure: number;
  ioPressure: number;
  steal: number;
  dbWaits: { normal: WaitTally; lowest: WaitTally };
  alerts: AlertTimes;
  /** The insights' jobs over the window, and the live calls' summaries at its end. */
  insights: Insights & { live: number; behind: number; oldestS: number };
  /** Ingest's statements a second and the batches each wrote on average (NaN: the server does not say). */
  groups: { perSecond: number; batchesEach: number };
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export const HEADER =
  'clients  stream-samples/s  ack p50   ack p99   live p50  live p95  failed  server CPU  server µs/sample  db µs/sample  server RSS  loop stall  GC ms/s  major GC ms/s  GCs >= 100 ms  db CPU  generator CPU  checkpoints begun  full-page images  WAL MB/s  blocks compacted  CPU pressure  I/O pressure  steal';

function describeWaits({ samples, busy }: WaitTally): string {
  const total = [...busy.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return 'idle';
  const top = [...busy].sort((a, b) => b[1] - a[1]).slice(0, 5);
  return `${(total / samples).toFixed(2)} busy on average: ${top.map(([k, n]) => `${k} ${((100 * n) / total).toFixed(0)} %`).join(', ')}`;
}

function describeAlerts({ rounds, seconds, slow, kinds }: AlertTimes): string {
  if (rounds === 0) return '';
  const ms = (s: number, n: number) => `${((s / n) * 1000).toFixed(1)} ms`;
  const byKind = [...kinds].filter(([, k]) => k.n > 0).map(([kind, k]) => `${kind} ${ms(k.seconds, k.n)}`);
  return `\n         alert rules: ${rounds} rounds, ${ms(seconds, rounds)} each on average (${slow} over 0.25 s); reading each kind of condition: ${byKind.join(', ')}`;
}

function describeInsights({ summaries, rollups, calls, days, live, behind, oldestS }: Measurement['insights']): string {
  const each = (job: Insights['summaries']) => (job.rounds ? `${((job.seconds / job.rounds) * 1000).toFixed(1)} ms a round` : 'no round');
  return (
    `\n         summaries: ${calls} calls in ${summaries.rounds} rounds (${each(summaries)}); ${behind} of ${live} live calls' summaries ` +
    `overdue, the oldest ${oldestS.toFixed(0)} s old; rollups: ${days} days (${each(rollups)})`
  );
}

function describeGroups({ perSecond, batchesEach }: Measurement['groups']): string {
  if (!(perSecond > 0)) return '';
  return `\n         ingest statements: ${perSecond.toFixed(0)}/s, ${batchesEach.toFixed(1)} batches each on average`;
}

/** A measurement as one line under HEADER, then what the database waited on and why batches failed. */
export function row(label: string, m: Measurement): string {
  return (
    [
      label.padStart(7),
      m.rate.toFixed(0).padStart(17),
      `${m.p50.toFixed(1)} ms`.padStart(9),
      `${m.p99.toFixed(1)} ms`.padStart(9),
      `${m.live50.toFixed(1)} ms`.padStart(9),
      `${m.live95.toFixed(1)} ms`.padStart(9),
      String(m.failed).padStart(7),
      `${(m.serverCpu * 100).toFixed(0)} %`.padStart(11),
      perSample(m.serverCpu, m.rate).toFixed(1).padStart(17),
      perSample(m.dbCpu, m.rate).toFixed(1).padStart(13),
      `${m.rssMb.toFixed(0)} MB`.padStart(11),
      `${m.loopStallMs.toFixed(0)} ms`.padStart(11),
      m.gcMsPerS.toFixed(1).padStart(8),
      m.majorGcMsPerS.toFixed(1).padStart(14),
      String(m.longGcs).padStart(14),
      `${(m.dbCpu * 100).toFixed(0)} %`.padStart(7),
      `${(m.generatorCpu * 100).toFixed(0)} %`.padStart(14),
      String(m.checkpoints).padStart(18),
      String(m.fullPageImages).padStart(17),
      m.walMbPerS.toFixed(1).padStart(9),
      String(m.blocks).padStart(15),
      `${(m.cpuPressure * 100).toFixed(0)} %`.padStart(13),
      `${(m.ioPressure * 100).toFixed(0)} %`.padStart(12),
      `${(m.steal * 100).toFixed(0)} %`.padStart(6),
    ].join(' ') +
    `\n         database backends at normal priority: ${describeWaits(m.dbWaits.normal)}; at the lowest: ${describeWaits(m.dbWaits.lowest)}` +
    describeGroups(m.groups) +
    describeAlerts(m.alerts) +
    describeInsights(m.insights) +
    m.failures.map(([why, n]) => `\n         failed ${n} ×: ${why}`).join('')
  );
}

/** CPU time per stream-sample, µs, from cores busy and stream-samples/s. */
export function perSample(cores: number, rate: number): number {
  return rate > 0 ? (cores / rate) * 1e6 : NaN;
}

/**
 * Two builds' stages side by side (`BENCH_BASELINE`): at each load both ran, what each sustained and what
 * a stream-sample cost the server and the database, with the ratio now / baseline.
 */
export function compareStages(
  before: { clients: number; m: Measurement; ok: boolean }[],
  after: { clients: number; m: Measurement; ok: boolean }[],
  bestBefore: number,
  bestAfter: number,
): string {
  const lines = ['baseline vs this tree, per stage (ratio = this / baseline; ✗ = past the 250 ms gate):'];
  for (const b of before) {
    const a = after.find((x) => x.clients === b.clients);
    if (!a) continue;
    const cell = (f: (m: Measurement) => number, digits: number) =>
      `${f(b.m).toFixed(digits)} → ${f(a.m).toFixed(digits)} (${(f(a.m) / f(b.m)).toFixed(2)})`;
    lines.push(
      `  ${String(b.clients).padStart(5)} clients${b.ok ? '' : ' ✗'}→${a.ok ? '' : '✗'}: stream-samples/s ${cell((m) => m.rate, 0)}, ` +
        `server µs/sample ${cell((m) => perSample(m.serverCpu, m.rate), 1)}, db µs/sample ${cell((m) => perSample(m.dbCpu, m.rate), 1)}, ` +
        `ack p99 ${cell((m) => m.p99, 0)} ms, live p95 ${cell((m) => m.live95, 0)} ms`,
    );
  }
  lines.push(
    `  sustained: baseline ${bestBefore.toFixed(0)}, this tree ${bestAfter.toFixed(0)} stream-samples/s (${(bestAfter / bestBefore).toFixed(2)}×)`,
  );
  return lines.join('\n');
}
