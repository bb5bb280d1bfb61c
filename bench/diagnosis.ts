// Diagnosis proven against the lab: real Chromium calls on this machine, each with one known impairment
// applied to one participant at a known time (or none), and what the diagnosis raised compared with that
// ground truth. Prints, per case, the issues raised; per detector, true and false issues, precision and
// recall and time to detect; per impairment family, the call's score against the impairment's severity
// (Spearman's rank correlation: -1 = the score falls in step with it). Its last line:
//   diagnosis: precision P recall R clean-false-issues N
// Run: pnpm bench:diagnosis   (BENCH_DIAG_CASES=clean,cap-300,... to pick cases; BENCH_DIAG_S=60 a call's
//      length, the impairment from BENCH_DIAG_AT=20 s to the end)
// Not in the matrix yet: CPU starvation (needs a cgroup CPU quota on one browser), a track that stops
// sending, a relayed (TURN) path: the runner cannot impose them yet.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { THRESHOLDS } from '@rtcscope/diagnosis';
import { runScenario } from '@rtcscope/lab';
import type { CallDiagnosis, CallIssue } from '@rtcscope/protocol';
import { type Conditions, parseScenario } from '@rtcscope/scenario';
import { freePort, startServerProcess } from '@rtcscope/server/testing';

const CALL_S = Number(process.env.BENCH_DIAG_S ?? 60);
const AT = Number(process.env.BENCH_DIAG_AT ?? 20);

interface Expected {
  type: string;
  participant: string;
}

interface Case {
  name: string;
  /** Cases of one family differ only in how severe the impairment is. */
  family: string | null;
  severity: number;
  /** What is set on p0's links at AT (none: a clean call). */
  impair: { on: 'uplink' | 'downlink' | 'both'; set: Conditions } | null;
  /** Issues that must be raised: the cause, on the right participant. */
  must: Expected[];
  /** Issues that may be raised as its consequences; anything else is a false issue. */
  may: Expected[];
}

/** What a receiver of damaged media may also show: its loss, bursts, freezes, lower quality, jitter. */
const receiverConsequences = (p: string): Expected[] => ['downlink-loss', 'bursty-loss', 'video-freeze', 'received-quality', 'high-jitter'].map((type) => ({ type, participant: p }));

const CASES: Case[] = [
  { name: 'clean', family: null, severity: 0, impair: null, must: [], may: [] },
  {
    name: 'cap-300',
    family: 'uplink cap',
    severity: 1,
    impair: { on: 'uplink', set: { rateKbps: 300 } },
    must: [{ type: 'uplink-congestion', participant: 'p0' }],
    // A sender over a tight link: its receiver sees the queue's loss and delay; its RTT rises.
    may: [...receiverConsequences('p1'), { type: 'high-rtt', participant: 'p0' }, { type: 'high-rtt', participant: 'p1' }],
  },
  ...[5, 10, 20].map(
    (pct): Case => ({
      name: `loss-${pct}`,
      family: 'downlink loss',
      severity: pct,
      impair: { on: 'downlink', set: { loss: { model: 'random', pct } } },
      must: [{ type: 'downlink-loss', participant: 'p0' }],
      // The sender to p0 backs off under the loss it hears of (GCC's loss controller).
      may: [...receiverConsequences('p0'), { type: 'uplink-congestion', participant: 'p1' }],
    }),
  ),
  {
    name: 'bursty',
    family: null,
    severity: 1,
    impair: { on: 'downlink', set: { loss: { model: 'gilbert-elliott', p: 0.02, r: 0.2, badPct: 100, goodPct: 0 } } },
    must: [{ type: 'bursty-loss', participant: 'p0' }],
    may: [...receiverConsequences('p0'), { type: 'uplink-congestion', participant: 'p1' }],
  },
  ...[150, 300].map(
    (ms): Case => ({
      name: `delay-${ms}`,
      family: 'added delay',
      severity: ms,
      // One way on both of p0's links: every round trip crosses two of them.
      impair: { on: 'both', set: { delayMs: ms } },
      must: [
        { type: 'high-rtt', participant: 'p0' },
        { type: 'high-rtt', participant: 'p1' },
      ],
      may: [],
    }),
  ),
  {
    name: 'jitter-60',
    family: null,
    severity: 1,
    impair: { on: 'downlink', set: { jitterMs: 60 } },
    must: [{ type: 'high-jitter', participant: 'p0' }],
    may: [...receiverConsequences('p0'), { type: 'uplink-congestion', participant: 'p1' }],
  },
];

const picked = process.env.BENCH_DIAG_CASES?.split(',');
const cases = picked ? CASES.filter((c) => picked.includes(c.name)) : CASES;

const dir = mkdtempSync(join(tmpdir(), 'rtcscope-bench-diagnosis-'));
const server = await startServerProcess({ DATA_DIR: join(dir, 'data'), PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'error', CALL_IDLE_TIMEOUT_S: '5' });
const keys = JSON.parse(readFileSync(join(dir, 'data/local-project.json'), 'utf8')) as { ingestKey: string; apiKey: string };
const api = async <T>(path: string) => (await (await fetch(`${server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${keys.apiKey}` } })).json()) as T;

interface Outcome {
  c: Case;
  issues: CallIssue[];
  startedAt: number;
  score: number | null;
}

const outcomes: Outcome[] = [];
console.log(`diagnosis benchmark: ${cases.length} real calls of ${CALL_S} s (two Chromium peers, 640x360 at 30 fps), the impairment on p0 from ${AT} s`);
for (const c of cases) {
  const scenario = parseScenario({
    id: `diagnosis-${c.name}`,
    title: `Diagnosis: ${c.name}`,
    participants: { count: 2, topology: 'pair', video: { width: 640, height: 360, fps: 30 } },
    links: { mode: 'per-participant', uplink: {}, downlink: {} },
    schedule: c.impair ? [{ at: AT, on: c.impair.on, participant: 0, set: c.impair.set }] : [],
    durationS: CALL_S,
  });
  if (!scenario.ok) throw new Error(`${c.name}: ${scenario.error.field}: ${scenario.error.message}`);
  const run = await runScenario({ server: server.url, ingestKey: keys.ingestKey, scenario: scenario.value, runId: 'bench', repetition: 1 });
  // The call ends once its participants have been silent CALL_IDLE_TIMEOUT_S; its open issues end with it.
  await new Promise((r) => setTimeout(r, 8000));
  const d = await api<CallDiagnosis>(`/calls/${run.callId}/diagnosis`);
  const after = d.scores.call.filter((w) => w.ts >= run.startedAt + (AT + 10) * 1000).map((w) => w.mean);
  const score = after.length ? after.reduce((a, b) => a + b, 0) / after.length : null;
  outcomes.push({ c, issues: d.issues, startedAt: run.startedAt, score });
  console.log(`\n${c.name}: score ${score?.toFixed(2) ?? '–'} after the impairment; issues:`);
  for (const i of d.issues) console.log(`  ${i.participantId} ${i.type} ${i.severity} ${((i.start - run.startedAt) / 1000).toFixed(0)}–${i.end === null ? 'open' : ((i.end - run.startedAt) / 1000).toFixed(0)} s`);
}
await server.stop();
rmSync(dir, { recursive: true, force: true });

// Judged against the ground truth.
const perDetector = new Map<string, { tp: number; fn: number; fp: number; detect: number[] }>();
const tally = (type: string) => perDetector.get(type) ?? perDetector.set(type, { tp: 0, fn: 0, fp: 0, detect: [] }).get(type)!;
let cleanFalse = 0;
for (const { c, issues, startedAt } of outcomes) {
  const impairAt = startedAt + AT * 1000;
  const matches = (e: Expected, i: CallIssue) => i.type === e.type && i.participantId === e.participant && i.start >= impairAt - 2000;
  for (const e of c.must) {
    const found = issues.filter((i) => matches(e, i)).sort((a, b) => a.start - b.start)[0];
    const t = tally(e.type);
    if (found) {
      t.tp++;
      // Raised on the sample that completes `raiseAfter` in a row: that many seconds after its start.
      t.detect.push((found.start - impairAt) / 1000 + THRESHOLDS.raiseAfter);
    } else t.fn++;
  }
  for (const i of issues) {
    const expected = [...c.must, ...c.may].some((e) => matches(e, i));
    if (expected) continue;
    tally(i.type).fp++;
    if (!c.impair) cleanFalse++;
  }
}
const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : null);
const fmt = (x: number | null, d = 2) => (x === null ? '–' : x.toFixed(d));
console.log('\ndetector'.padEnd(22), 'true'.padStart(5), 'missed'.padStart(7), 'false'.padStart(6), 'precision'.padStart(10), 'recall'.padStart(7), 'detect p50 (s)'.padStart(15));
let [tp, fn, fp] = [0, 0, 0];
for (const [type, t] of [...perDetector].sort(([a], [b]) => a.localeCompare(b))) {
  [tp, fn, fp] = [tp + t.tp, fn + t.fn, fp + t.fp];
  const precision = t.tp + t.fp ? t.tp / (t.tp + t.fp) : null;
  const recall = t.tp + t.fn ? t.tp / (t.tp + t.fn) : null;
  console.log(type.padEnd(21), String(t.tp).padStart(5), String(t.fn).padStart(7), String(t.fp).padStart(6), fmt(precision).padStart(10), fmt(recall).padStart(7), fmt(median(t.detect), 1).padStart(15));
}

/** Spearman's rank correlation (ties get their mean rank). */
function spearman(xs: number[], ys: number[]): number | null {
  const rank = (v: number[]) => v.map((x) => (v.filter((y) => y < x).length + v.filter((y) => y <= x).length + 1) / 2);
  const [rx, ry] = [rank(xs), rank(ys)];
  const n = xs.length;
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / n;
  const [mx, my] = [mean(rx), mean(ry)];
  const cov = rx.reduce((a, x, k) => a + (x - mx) * (ry[k]! - my), 0);
  const sd = Math.sqrt(rx.reduce((a, x) => a + (x - mx) ** 2, 0) * ry.reduce((a, y) => a + (y - my) ** 2, 0));
  return n >= 2 && sd > 0 ? cov / sd : null;
}
const clean = outcomes.find((o) => !o.c.impair);
console.log('\nscore against severity (the clean call as severity 0):');
for (const family of [...new Set(outcomes.map((o) => o.c.family).filter((f): f is string => f !== null))]) {
  const points = [...(clean ? [clean] : []), ...outcomes.filter((o) => o.c.family === family)].filter((o) => o.score !== null);
  const monotonic = points.every((p, k) => k === 0 || p.score! <= points[k - 1]!.score! + 0.05);
  console.log(
    `  ${family}: ${points.map((p) => `${p.c.severity} → ${p.score!.toFixed(2)}`).join(', ')}; Spearman ${fmt(spearman(points.map((p) => p.c.severity), points.map((p) => p.score!)))}; falls with severity: ${monotonic ? 'yes' : 'no'}`,
  );
}
const precision = tp + fp ? tp / (tp + fp) : 0;
const recall = tp + fn ? tp / (tp + fn) : 0;
console.log(`diagnosis: precision ${precision.toFixed(2)} recall ${recall.toFixed(2)} clean-false-issues ${cleanFalse}`);
process.exit(0);
