// Real recordings as a support engineer meets them: each file of ../shared/recordings (public Jitsi
// dumps, read there and never copied) imported through POST /api/v1/recordings into a server process,
// then per call: its streams by what they carried (never, all along, with pauses), the score and verdict
// with what lowers it, and each issue with its cause. It checks what must hold of every call (no stream
// that never carried media in a score or an issue, the verdict agreeing with the score and the issues)
// and prints each breach. Then the same of lab calls of known truth recorded as Jitsi Meet records its
// calls: each page of a real two-peer Chromium call runs the real @jitsi/rtcstats client (every 10 s,
// descriptions without SDP), one case's impairment on p0 from 20 s; each page's dump is imported as the
// one-sided recording it is and judged against what that side can see: precision and recall.
// Run: pnpm bench:recordings   (BENCH_RECORDINGS_DIR for another folder; BENCH_RECORDINGS_LAB=0 to leave
//      out the lab calls, =case,case to pick them; BENCH_RECORDINGS_POLL_S=10 the client's interval)
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issuesVerdict } from '@rtcscope/metrics';
import { createProject, openDatabase, startEmbeddedPostgres } from '@rtcscope/server';
import { freePort } from '@rtcscope/server/testing';
import type { CallDetail, CallDiagnosis, RecordingImported, Series } from '@rtcscope/protocol';
import { rtcstatsClientBundle, rtcstatsCollector, runScenario } from '@rtcscope/lab';
import { type Conditions, parseScenario } from '@rtcscope/scenario';
import { startBenchServer } from './bench-server.js';

const FOLDER = process.env.BENCH_RECORDINGS_DIR ?? join(import.meta.dirname, '..', '..', 'shared', 'recordings');
if (!existsSync(FOLDER)) {
  console.log(`no recordings at ${FOLDER}: set BENCH_RECORDINGS_DIR`);
  process.exit(0);
}
const files = readdirSync(FOLDER).filter((f) => !f.endsWith('.md'));

const dir = mkdtempSync(join(tmpdir(), 'rtcscope-bench-recordings-'));
chmodSync(dir, 0o755);
const pg = await startEmbeddedPostgres(join(dir, 'db'), await freePort(), () => {});
const db = await openDatabase(pg.url);
const project = await createProject(db, 'recordings');
const server = await startBenchServer(pg.url, join(dir, 'data'));

async function get<T>(path: string): Promise<T> {
  const res = await fetch(`${server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${project.apiKey}` } });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** A sample carried media: payload, or decoded frames (a first sample's rate is not known yet). */
function carriedAt(series: Series): (v: (number | null)[]) => boolean {
  const [kbps, fps] = [series.fields.indexOf('kbps'), series.fields.indexOf('fps')];
  return (v) => (v[kbps] ?? 0) > 0 || (v[fps] ?? 0) > 0;
}

/** What a stream carried over the call, from its stored samples: never, all along, or with silences of 3 samples or more between. */
function carried(series: Series): Map<number, 'never' | 'active' | 'with pauses'> {
  const media = carriedAt(series);
  const by = new Map<number, boolean[]>();
  for (const p of series.streams) by.set(p.id, [...(by.get(p.id) ?? []), media(p.v)]);
  const states = new Map<number, 'never' | 'active' | 'with pauses'>();
  for (const [id, carriedThen] of by) {
    const first = carriedThen.indexOf(true);
    if (first < 0) {
      states.set(id, 'never');
      continue;
    }
    const last = carriedThen.lastIndexOf(true);
    let run = 0;
    let paused = false;
    for (const c of carriedThen.slice(first, last + 1)) {
      run = c ? 0 : run + 1;
      paused ||= run >= 3;
    }
    states.set(id, paused ? 'with pauses' : 'active');
  }
  return states;
}

/**
 * A received stream's samples that someone heard or saw (audio's payload, video's decoded frames) and
 * that fall in none of its score windows (the first and last of each run of media, which cover the
 * moment it began or stopped, are not scored): what a recording's interval lost. A video's packets that decode no frame (probing, padding
 * before the first keyframe) show nothing to score: counted apart.
 */
function unscoredSamples(
  streams: CallDetail['participants'][number]['connections'][number]['streams'],
  series: Series,
  diagnosis: CallDiagnosis,
): { lost: string[]; undecoded: number } {
  const [kbps, fps] = [series.fields.indexOf('kbps'), series.fields.indexOf('fps')];
  const lost: string[] = [];
  let undecoded = 0;
  for (const s of streams) {
    if (s.direction !== 'in' || s.state === 'never-active') continue;
    const windows = diagnosis.scores.streams.find((w) => w.streamId === s.id)?.windows ?? [];
    const own = series.streams.filter((p) => p.id === s.id);
    const on = own.map((p) => (p.v[s.kind === 'audio' ? kbps : fps] ?? 0) > 0);
    // A run's first and last samples cover the moment media began or stopped: the diagnosis scores neither.
    const heard = own.filter((_, k) => on[k] && k > 0 && on[k - 1] && k < own.length - 1 && on[k + 1]);
    if (s.kind === 'video')
      undecoded += series.streams.filter((p) => p.id === s.id && (p.v[kbps] ?? 0) > 0 && !((p.v[fps] ?? 0) > 0)).length;
    for (const p of heard)
      if (!windows.some((w) => p.ts >= w.ts && p.ts < w.ts + diagnosis.scores.windowMs))
        lost.push(
          `${s.id}@${new Date(p.ts).toISOString().slice(11, 19)} [${series.fields.map((f, k) => `${f} ${p.v[k]?.toFixed(1) ?? '-'}`).join(' ')}]`,
        );
  }
  return { lost, undecoded };
}

const breaches: string[] = [];
let calls = 0;

/** Imports a recording, prints what its call became and keeps each breach; null where it was not imported. */
async function importAndReport(name: string, body: Buffer | string): Promise<{ diagnosis: CallDiagnosis } | null> {
  const res = await fetch(`${server.url}/api/v1/recordings?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/octet-stream' },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  if (res.status !== 201) {
    console.log(`\n${name}: not imported: ${res.status} ${(await res.text()).slice(0, 200)}`);
    if (res.status >= 500) console.log(server.output().slice(-2000));
    return null;
  }
  calls++;
  const imported = (await res.json()) as RecordingImported;
  const id = encodeURIComponent(imported.callId);
  const [detail, diagnosis, series] = await Promise.all([
    get<CallDetail>(`/calls/${id}`),
    get<CallDiagnosis>(`/calls/${id}/diagnosis`),
    get<Series>(`/calls/${id}/series?fields=kbps,fps,height,lossPct,packets,freezeMs,concealedPct&maxPoints=10000`),
  ]);
  const states = carried(series);
  const streams = detail.participants.flatMap((p) => p.connections.flatMap((c) => c.streams.map((s) => ({ ...s, participant: p.id }))));
  const count = (state: string) => streams.filter((s) => (states.get(s.id) ?? 'never') === state).length;
  const told = (state: string) => streams.filter((s) => s.state === state).length;
  const { call } = detail;
  console.log(
    `\n${name} (${imported.format}, ${imported.browser ?? 'browser not said'}, ${imported.samples} samples): ${streams.length} streams — ` +
      `${count('active')} active, ${count('with pauses')} with pauses, ${count('never')} never carried media; ` +
      `the API's states: ${told('active')} active, ${told('paused')} paused, ${told('ended')} ended, ${told('never-active')} never-active`,
  );
  for (const s of streams)
    if ((states.get(s.id) ?? 'never') === 'never' ? s.state !== 'never-active' : s.state === 'never-active')
      breaches.push(`${name}: stream ${s.id} carried ${states.get(s.id) ?? 'nothing'}, but the API says ${s.state}`);
  if (process.env.BENCH_RECORDINGS_TIMELINE) {
    const k = series.fields.indexOf('kbps');
    const f = series.fields.indexOf('fps');
    const pk = series.fields.indexOf('packets');
    for (const s of streams) {
      const pts = series.streams.filter((p) => p.id === s.id);
      const line = pts
        .map((p) => ((p.v[k] ?? 0) > 0 ? '#' : (p.v[f] ?? 0) > 0 ? 'f' : p.v[k] === null ? (p.v[pk] === null ? '-' : 'p') : '.'))
        .join('');
      console.log(
        `    ${s.id} ${s.participant} ${s.direction} ${s.kind} ${s.state} ${s.ssrc} ${new Date(pts[0]?.ts ?? 0).toISOString().slice(11, 19)}–${new Date(pts.at(-1)?.ts ?? 0).toISOString().slice(11, 19)} ${line}`,
      );
    }
  }
  const unscored = unscoredSamples(streams, series, diagnosis);
  console.log(
    `  received samples heard or seen outside every score window: ${unscored.lost.length}; video samples with packets but no decoded frame (nothing to score): ${unscored.undecoded}`,
  );
  if (unscored.lost.length)
    breaches.push(`${name}: ${unscored.lost.length} received samples in no score window (${unscored.lost.slice(0, 5).join(', ')})`);
  const lowest = diagnosis.scores.streams
    .map((s) => ({ s, worst: Math.min(...s.windows.map((w) => w.mos)) }))
    .sort((a, b) => a.worst - b.worst)[0];
  const lowers = lowest?.s.windows.find((w) => w.mos === lowest.worst)?.lowers ?? {};
  console.log(
    `  score ${call.score?.toFixed(2) ?? 'none'}, verdict ${call.quality}; lowest stream ${
      lowest
        ? `${lowest.s.participantId}'s ${lowest.s.kind} ${lowest.s.streamId} at ${lowest.worst.toFixed(2)} (lowered by ${
            Object.entries(lowers)
              .map(([k, v]) => `${k} ${(v as number).toFixed(2)}`)
              .join(', ') || 'nothing named'
          })`
        : 'none scored'
    }`,
  );
  if (lowest) {
    const at = lowest.s.windows.find((w) => w.mos === lowest.worst)!.ts;
    const inWindow = series.streams.filter((p) => p.id === lowest.s.streamId && p.ts >= at && p.ts < at + diagnosis.scores.windowMs);
    const means = series.fields.map((f, k) => {
      const xs = inWindow.map((p) => p.v[k]).filter((v): v is number => v !== null);
      return `${f} ${xs.length ? (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(1) : '?'}`;
    });
    console.log(`    its worst window (${inWindow.length} samples): ${means.join(', ')}`);
    for (const p of inWindow)
      console.log(`      ${new Date(p.ts).toISOString().slice(11, 23)} ${p.v.map((v) => v?.toFixed(1) ?? '-').join(' ')}`);
  }
  if (process.env.BENCH_RECORDINGS_WINDOWS)
    for (const s of diagnosis.scores.streams) {
      console.log(`    ${s.participantId}'s ${s.kind} ${s.streamId}: ${s.windows.map((w) => w.mos.toFixed(1)).join(' ')}`);
      const low = s.windows.find((w) => w.mos < 1.5);
      if (low)
        for (const p of series.streams.filter((p) => p.id === s.streamId && p.ts >= low.ts - 6000 && p.ts < low.ts + 6000))
          console.log(`      ${new Date(p.ts).toISOString().slice(11, 23)} ${p.v.map((v) => v?.toFixed(1) ?? '-').join(' ')}`);
    }
  for (const i of diagnosis.issues) {
    const cause = i.causeId === null ? 'no cause in the call' : `under #${i.causeId}`;
    const state = i.streamId === null ? '' : ` [stream ${i.streamId}: ${states.get(i.streamId) ?? 'no samples'}]`;
    console.log(`  #${i.id} ${i.severity} ${i.type} on ${i.participantId}${state}, ${cause}: ${i.cause}`);
  }
  for (const s of diagnosis.scores.streams)
    if (states.get(s.streamId) === 'never') breaches.push(`${name}: stream ${s.streamId}, which never carried media, is scored`);
  for (const i of diagnosis.issues)
    if (i.streamId !== null && states.get(i.streamId) === 'never')
      breaches.push(`${name}: ${i.type} raised on stream ${i.streamId}, which never carried media`);
  const byId = new Map(diagnosis.issues.map((i) => [i.id, i]));
  const verdict = issuesVerdict(
    call.score,
    diagnosis.issues.map((i) => ({ ...i, causeType: i.causeId === null ? null : byId.get(i.causeId)?.type })),
  );
  if (verdict !== call.quality) breaches.push(`${name}: verdict ${call.quality}, but its score and issues make it ${verdict}`);
  if (call.score !== null && call.score < 2 && call.quality === 'good')
    breaches.push(`${name}: score ${call.score.toFixed(2)} and verdict good`);
  return { diagnosis };
}

/** What one side's recording can show of a case: issue types on its one participant that must be raised, and that may be. */
interface Side {
  must: string[];
  may: string[];
}

interface RecordedCase {
  name: string;
  /** What is set on p0's links at AT_S (none: a clean call). */
  impair: { on: 'uplink' | 'downlink' | 'both'; set: Conditions } | null;
  /** p0's recording, then p1's. */
  sides: [Side, Side];
}

/** What a receiver of damaged media may show. */
const RECEIVER = ['downlink-loss', 'bursty-loss', 'video-freeze', 'received-quality', 'high-jitter', 'audio-concealment'];
const nothing: Side = { must: [], may: [] };

const RECORDED_CASES: RecordedCase[] = [
  { name: 'clean', impair: null, sides: [nothing, nothing] },
  {
    name: 'cap-300',
    impair: { on: 'uplink', set: { rateKbps: 300 } },
    // p0 sees its own congestion (and the loss its queue makes); p1 only what reaches it.
    sides: [
      { must: ['uplink-congestion'], may: ['uplink-loss', 'high-rtt'] },
      { must: [], may: [...RECEIVER, 'high-rtt'] },
    ],
  },
  {
    name: 'loss-10',
    impair: { on: 'downlink', set: { loss: { model: 'random', pct: 10 } } },
    // p0 counts its loss; p1 hears of it from p0's reports, which its recording alone cannot place.
    sides: [
      { must: ['downlink-loss'], may: RECEIVER },
      { must: ['uplink-loss'], may: ['uplink-congestion'] },
    ],
  },
  {
    name: 'delay-300',
    impair: { on: 'both', set: { delayMs: 300 } },
    sides: [
      { must: ['high-rtt'], may: ['audio-concealment', 'bursty-loss', 'uplink-congestion', 'high-jitter'] },
      { must: ['high-rtt'], may: ['audio-concealment', 'bursty-loss', 'uplink-congestion', 'high-jitter'] },
    ],
  },
];

/** The lab calls' length and when their impairment comes, s. */
const LAB_CALL_S = 80;
const AT_S = 20;
const POLL_S = Number(process.env.BENCH_RECORDINGS_POLL_S ?? 10);

/**
 * Lab calls recorded by the real @jitsi/rtcstats client in each page, each page's dump imported as one
 * recording and judged against what its side can see (`RecordedCase.sides`): a must found is true, one
 * not found missed, any other issue false (any issue on a clean call too).
 */
async function labRecordings(): Promise<void> {
  const picked = process.env.BENCH_RECORDINGS_LAB?.split(',');
  const cases = picked && picked[0] !== '1' ? RECORDED_CASES.filter((c) => picked.includes(c.name)) : RECORDED_CASES;
  const bundle = await rtcstatsClientBundle();
  let [tp, fn, fp] = [0, 0, 0];
  const detect: number[] = [];
  console.log(
    `\nlab calls recorded by @jitsi/rtcstats every ${POLL_S} s: ${cases.length} two-peer Chromium calls of ${LAB_CALL_S} s, the impairment on p0 from ${AT_S} s`,
  );
  for (const c of cases) {
    const collector = await rtcstatsCollector();
    try {
      const scenario = parseScenario({
        id: `recorded-${c.name}`,
        title: `Recorded by rtcstats: ${c.name}`,
        participants: { count: 2, topology: 'pair', video: { width: 640, height: 360, fps: 30 } },
        links: { mode: 'per-participant', uplink: {}, downlink: {} },
        schedule: c.impair ? [{ at: AT_S, on: c.impair.on, participant: 0, set: c.impair.set }] : [],
        durationS: LAB_CALL_S,
      });
      if (!scenario.ok) throw new Error(`${c.name}: ${scenario.error.field}: ${scenario.error.message}`);
      const run = await runScenario({
        server: server.url,
        ingestKey: project.ingestKey,
        scenario: scenario.value,
        runId: 'bench',
        repetition: 1,
        pageScript: `${bundle}\nwindow.startRtcstats(${JSON.stringify(collector.url)}, ${POLL_S * 1000});`,
      });
      const impairedAt = run.startedAt + AT_S * 1000;
      // The pages connected in order (p0's first): each client's dump is one page's, as rtcstats-server keeps them.
      for (const [k, lines] of collector.dumps.entries()) {
        const side = c.sides[k];
        if (!side) continue;
        const judged = await importAndReport(`lab ${c.name}, p${k}'s page`, lines.join('\n') + '\n');
        if (!judged) {
          fn += side.must.length;
          continue;
        }
        const issues = judged.diagnosis.issues;
        // A poll's issue starts when the poll's interval began: up to a poll before the change it shows.
        const after = issues.filter((i) => c.impair && i.start >= impairedAt - POLL_S * 1000);
        for (const type of side.must) {
          const found = after.filter((i) => i.type === type).sort((a, b) => a.start - b.start)[0];
          if (found) {
            tp++;
            detect.push((found.start - impairedAt) / 1000);
          } else fn++;
        }
        const wrong = issues.filter((i) => !after.includes(i) || ![...side.must, ...side.may].includes(i.type));
        fp += wrong.length;
        console.log(
          `  judged: must ${side.must.join(', ') || 'nothing'}; ${side.must.filter((t) => after.some((i) => i.type === t)).length} found; false: ${
            wrong.map((i) => `${i.type} at ${((i.start - run.startedAt) / 1000).toFixed(0)} s`).join(', ') || 'none'
          }`,
        );
      }
    } finally {
      await collector.close();
    }
  }
  const median = detect.length ? [...detect].sort((a, b) => a - b)[Math.floor(detect.length / 2)]! : null;
  console.log(
    `\nlab recordings: precision ${(tp + fp ? tp / (tp + fp) : 0).toFixed(2)} recall ${(tp + fn ? tp / (tp + fn) : 0).toFixed(2)} (${tp} true, ${fn} missed, ${fp} false); an issue's start from the impairment, median ${median?.toFixed(0) ?? '–'} s`,
  );
}

try {
  for (const file of files) await importAndReport(file, readFileSync(join(FOLDER, file)));
  console.log(`\n${calls} of ${files.length} recordings imported`);
  if (process.env.BENCH_RECORDINGS_LAB !== '0') await labRecordings();
  console.log(`\n${breaches.length} breaches${breaches.length ? ':' : ''}`);
  for (const b of breaches) console.log(`  ${b}`);
} finally {
  await server.stop();
  await db.close();
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
