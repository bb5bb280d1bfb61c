// False alarms on clean calls: real lab calls with nothing impaired, from sources other than the
// diagnosis bench's one (frame rates, resolutions, the drawn canvas, codecs, Firefox beside Chromium),
// each judged by the live diagnosis. A warning or critical issue on any of them is a false alarm; an
// informational one (a relayed path) is not. Prints, per configuration: its issues, false alarms per
// clean call-hour, the call's verdict and score, and what lowers the score. Its last line:
//   clean calls: N configurations, F false alarms (X per call-hour)
// Run: pnpm bench:clean   (BENCH_CLEAN_S=90 a call's length; BENCH_CLEAN_CONFIGS=camera-720p10,... to pick)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScenario } from '@rtcscope/lab';
import type { CallDiagnosis, CallList } from '@rtcscope/protocol';
import { parseScenario } from '@rtcscope/scenario';
import { freePort, startServerProcess } from '@rtcscope/server/testing';

const CALL_S = Number(process.env.BENCH_CLEAN_S ?? 90);

interface Config {
  name: string;
  video: { width: number; height: number; fps: number; source?: 'camera' | 'canvas' };
  codec?: 'VP8' | 'VP9' | 'H264';
  browsers?: ('chromium' | 'firefox')[];
}

const CONFIGS: Config[] = [
  { name: 'camera-360p30', video: { width: 640, height: 360, fps: 30 } },
  { name: 'camera-480p20', video: { width: 640, height: 480, fps: 20 } },
  { name: 'camera-360p15', video: { width: 640, height: 360, fps: 15 } },
  { name: 'camera-720p10', video: { width: 1280, height: 720, fps: 10 } },
  { name: 'camera-720p24', video: { width: 1280, height: 720, fps: 24 } },
  { name: 'camera-180p30', video: { width: 320, height: 180, fps: 30 } },
  { name: 'canvas-360p30', video: { width: 640, height: 360, fps: 30, source: 'canvas' } },
  { name: 'vp9-360p30', video: { width: 640, height: 360, fps: 30 }, codec: 'VP9' },
  { name: 'h264-360p30', video: { width: 640, height: 360, fps: 30 }, codec: 'H264' },
  { name: 'firefox-chromium-360p30', video: { width: 640, height: 360, fps: 30, source: 'canvas' }, browsers: ['firefox', 'chromium'] },
];

const picked = process.env.BENCH_CLEAN_CONFIGS?.split(',');
const configs = picked ? CONFIGS.filter((c) => picked.includes(c.name)) : CONFIGS;

const dir = mkdtempSync(join(tmpdir(), 'rtcscope-bench-clean-'));
const server = await startServerProcess({ DATA_DIR: join(dir, 'data'), PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'error', CALL_IDLE_TIMEOUT_S: '5' });
const keys = JSON.parse(readFileSync(join(dir, 'data/local-project.json'), 'utf8')) as { ingestKey: string; apiKey: string };
const api = async <T>(path: string) => (await (await fetch(`${server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${keys.apiKey}` } })).json()) as T;

console.log(`clean-call benchmark: ${configs.length} real calls of ${CALL_S} s, two peers, nothing impaired`);
let falseAlarms = 0;
let seconds = 0;
for (const c of configs) {
  const scenario = parseScenario({
    id: `clean-${c.name}`,
    title: `Clean: ${c.name}`,
    participants: { count: 2, topology: 'pair', video: c.video, ...(c.codec ? { codec: c.codec } : {}), ...(c.browsers ? { browsers: c.browsers } : {}) },
    links: { mode: 'per-participant', uplink: {}, downlink: {} },
    schedule: [],
    durationS: CALL_S,
  });
  if (!scenario.ok) throw new Error(`${c.name}: ${scenario.error.field}: ${scenario.error.message}`);
  const run = await runScenario({ server: server.url, ingestKey: keys.ingestKey, scenario: scenario.value, runId: 'bench', repetition: 1 });
  // The call ends once its participants have been silent CALL_IDLE_TIMEOUT_S; its verdict and score are written then.
  await new Promise((r) => setTimeout(r, 8000));
  const d = await api<CallDiagnosis>(`/calls/${run.callId}/diagnosis`);
  const listed = (await api<CallList>(`/calls?q=${encodeURIComponent(run.callId)}&lab=true`)).calls.find((x) => x.id === run.callId);
  const alarms = d.issues.filter((i) => i.severity !== 'info');
  const callS = (run.endedAt - run.startedAt) / 1000;
  falseAlarms += alarms.length;
  seconds += callS;
  const lowers = Object.entries(d.scores.participants).map(([p, windows]) => {
    const sums = new Map<string, number>();
    for (const w of windows) for (const [f, points] of Object.entries(w.lowers)) sums.set(f, (sums.get(f) ?? 0) + points);
    const top = [...sums].map(([f, s]) => [f, s / windows.length] as const).filter(([, m]) => m >= 0.1).sort((a, b) => b[1] - a[1]);
    return `${p}: ${top.map(([f, m]) => `${f} −${m.toFixed(1)}`).join(', ') || 'nothing notable'}`;
  });
  console.log(
    `\n${c.name}: ${alarms.length} false alarms (${((alarms.length * 3600) / callS).toFixed(1)} per call-hour); verdict ${listed?.quality ?? '?'}, score ${d.scores.summary.mean?.toFixed(2) ?? '–'}; lowered by ${lowers.join('; ')}`,
  );
  for (const i of d.issues) console.log(`  ${i.participantId} ${i.type} ${i.severity} ${((i.start - run.startedAt) / 1000).toFixed(0)}–${i.end === null ? 'open' : ((i.end - run.startedAt) / 1000).toFixed(0)} s: ${i.cause}`);
}
await server.stop();
rmSync(dir, { recursive: true, force: true });
console.log(`clean calls: ${configs.length} configurations, ${falseAlarms} false alarms (${((falseAlarms * 3600) / Math.max(1, seconds)).toFixed(1)} per call-hour)`);
process.exit(0);
