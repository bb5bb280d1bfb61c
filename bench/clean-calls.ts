// False alarms on clean calls: real lab calls with nothing impaired, from sources other than the
// diagnosis bench's one (camera-like video at 10–30 fps and 180p–1080p, a drawn animation at a frame rate
// that varies, a shared screen still then scrolling, audio only, codecs, Firefox beside Chromium, a path
// through TURN, a camera turned on 30 s into the call, three people through an SFU (Janus; LiveKit), one of
// them in Firefox, a person muting their microphone three ways), each judged by the live diagnosis. A warning or critical issue on any of them is a false alarm; an
// informational one (a relayed path) is not. Prints, per configuration: its issues, false alarms per
// clean call-hour, the call's verdict and score, and what lowers the score. Its last line:
//   clean calls: N configurations, F false alarms (X per call-hour)
// Run: pnpm bench:clean   (BENCH_CLEAN_S=90 a call's length; BENCH_CLEAN_CONFIGS=camera-720p10,... to pick)
import { type LabCall, runScenario } from '@rtcscope/lab';
import type { CallDetail, CallDiagnosis, CallEvents, CallList, Series } from '@rtcscope/protocol';
import { mean } from '@rtcscope/metrics';
import { parseScenario, type Scenario } from '@rtcscope/scenario';
import { startLabServer } from './lab-server.js';
import { relayedCall, turnMissing } from './turn-call.js';

const CALL_S = Number(process.env.BENCH_CLEAN_S ?? 90);

interface Config {
  name: string;
  participants: Pick<Scenario['participants'], 'video'> & Partial<Scenario['participants']>;
  /** What a person does in the call once it is connected, as the bench's own timers. */
  act?: (call: LabCall) => void;
  /** Through a TURN server (see turn-call.ts) rather than the lab's links. */
  relayed?: true;
  /** p0 mutes its microphone from MUTED_S[0] to MUTED_S[1] after the call connects, this way. */
  mute?: Mute;
}

const camera = (width: number, height: number, fps: number) => ({ video: { width, height, fps } });
const drawn = (source: 'canvas' | 'screen', width: number, height: number, fps: number) => ({ video: { width, height, fps, source } });

/** Takes every participant's camera off its senders (as an app's "camera off" does with replaceTrack) or puts it back. */
const cameraOn = (call: LabCall, on: boolean) =>
  Promise.all(
    [0, 1].map((k) =>
      call.page(k).evaluate(async (on) => {
        const { lab } = window as unknown as { lab: { stream: MediaStream; pcs: Record<string, RTCPeerConnection> } };
        for (const pc of Object.values(lab.pcs)) {
          for (const t of pc.getTransceivers())
            if (t.receiver.track.kind === 'video') await t.sender.replaceTrack(on ? lab.stream.getVideoTracks()[0]! : null);
        }
      }, on),
    ),
  );

/** How p0's microphone goes quiet for MUTED_S: its track disabled (silence is still sent), or taken off its sender. */
type Mute = 'disabled' | 'off-sender';
const MUTED_S = [20, 50] as const;
const muteAudio = (call: LabCall, how: Mute, muted: boolean) =>
  call.page(0).evaluate(
    async ({ how, muted }) => {
      const { lab } = window as unknown as { lab: { stream: MediaStream; pcs: Record<string, RTCPeerConnection> } };
      const track = lab.stream.getAudioTracks()[0]!;
      if (how === 'disabled') track.enabled = !muted;
      else
        for (const pc of Object.values(lab.pcs))
          for (const t of pc.getTransceivers()) if (t.receiver.track.kind === 'audio') await t.sender.replaceTrack(muted ? null : track);
    },
    { how, muted },
  );
const muting = (how: Mute) => (call: LabCall) => {
  setTimeout(() => void muteAudio(call, how, true), MUTED_S[0] * 1000);
  setTimeout(() => void muteAudio(call, how, false), MUTED_S[1] * 1000);
};

/**
 * What p0's silence did: the audio packets it sent a second, and p1's score of what it heard from p0,
 * before and while muted; each window of it from 5 s before the mute to 10 s after, and around each edge,
 * what p1 received each second (packets, and the share of its audio concealed).
 */
async function mutedReport(run: { callId: string; startedAt: number }, d: CallDiagnosis): Promise<string> {
  const detail = await api<CallDetail>(`/calls/${run.callId}`);
  const series = await api<Series>(`/calls/${run.callId}/series?maxPoints=10000&fields=packets,concealedPct`);
  const streamsOf = (p: string) => detail.participants.find((x) => x.id === p)!.connections.flatMap((c) => c.streams);
  const sentAudio = streamsOf('p0').find((x) => x.kind === 'audio' && x.direction === 'out')!.id;
  const heardAudio = streamsOf('p1').find((x) => x.kind === 'audio' && x.direction === 'in')!.id;
  const at = (s: number) => run.startedAt + s * 1000;
  const second = (ts: number) => ((ts - run.startedAt) / 1000).toFixed(0);
  // When p0's page muted and unmuted: the bench's timers run from the call's connection, a little after its start.
  const { events } = await api<CallEvents>(`/calls/${run.callId}/events`);
  // (A sender is said muted at the start too, before its track is on it.)
  const edge = (type: string, after: number) =>
    events.find((e) => e.participantId === 'p0' && e.type === type && e.detail?.includes('audio') && e.ts > after)?.ts;
  const mutedAt = edge('track-muted', at(10)) ?? at(MUTED_S[0]);
  const unmutedAt = edge('track-unmuted', mutedAt) ?? at(MUTED_S[1]);
  // The muted span's middle, clear of its edges.
  const during = (ts: number) => ts >= mutedAt + 8000 && ts < unmutedAt - 2000;
  const packets = series.streams.filter((pt) => pt.id === sentAudio && during(pt.ts)).map((pt) => pt.v[0] ?? 0);
  const heard = d.scores.streams.find((x) => x.participantId === 'p1' && x.kind === 'audio')?.windows ?? [];
  const scores = (muted: boolean) => heard.filter((w) => during(w.ts) === muted && w.ts >= at(10)).map((w) => w.mos);
  const low = (xs: number[]) => (xs.length ? Math.min(...xs).toFixed(2) : '–');
  const windows = heard
    .filter((w) => w.ts >= mutedAt - 5000 && w.ts < unmutedAt + 10_000)
    .map((w) => `${second(w.ts)} s ${w.mos.toFixed(2)}`)
    .join(', ');
  const around = (edge: number) =>
    series.streams
      .filter((pt) => pt.id === heardAudio && Math.abs(pt.ts - edge) <= 2500)
      .map((pt) => `${second(pt.ts)} s ${pt.v[0]} pkts ${pt.v[1]} % concealed`)
      .join(', ');
  return [
    `p0 muted at ${second(mutedAt)} s, unmuted at ${second(unmutedAt)} s: sent ${(mean(packets) ?? 0).toFixed(1)} audio packets/s while muted (${packets.filter((x) => x === 0).length} of ${packets.length} s none); p1's audio score of it: lowest ${low(scores(true))} muted, ${low(scores(false))} not`,
    `p1's audio windows: ${windows}`,
    `p1 received around the mute: ${around(mutedAt)}`,
    `p1 received around the unmute: ${around(unmutedAt)}`,
  ].join('\n  ');
}

const CONFIGS: Config[] = [
  { name: 'camera-360p30', participants: camera(640, 360, 30) },
  { name: 'camera-480p20', participants: camera(640, 480, 20) },
  { name: 'camera-360p15', participants: camera(640, 360, 15) },
  { name: 'camera-720p10', participants: camera(1280, 720, 10) },
  { name: 'camera-720p24', participants: camera(1280, 720, 24) },
  { name: 'camera-1080p15', participants: camera(1920, 1080, 15) },
  { name: 'camera-180p30', participants: camera(320, 180, 30) },
  { name: 'canvas-360p30', participants: drawn('canvas', 640, 360, 30) },
  { name: 'canvas-480p24-varying-fps', participants: { video: { width: 640, height: 480, fps: 24, source: 'canvas', fpsVaries: true } } },
  { name: 'screen-720p15-still-then-scrolling', participants: drawn('screen', 1280, 720, 15) },
  { name: 'audio-only', participants: { ...camera(640, 360, 30), audioOnly: true } },
  { name: 'vp9-360p30', participants: { ...camera(640, 360, 30), codec: 'VP9' } },
  { name: 'h264-360p30', participants: { ...camera(640, 360, 30), codec: 'H264' } },
  { name: 'firefox-chromium-360p30', participants: { ...drawn('canvas', 640, 360, 30), browsers: ['firefox', 'chromium'] } },
  { name: 'turn-relayed-360p30', participants: camera(640, 360, 30), relayed: true },
  // Gallery tiles: three people at 360p30 saturate a 2-core host (see bench/diagnosis.ts).
  { name: 'sfu-3-camera-180p30', participants: { ...camera(320, 180, 30), count: 3, topology: 'sfu' } },
  { name: 'livekit-3-camera-360p15', participants: { ...camera(640, 360, 15), count: 3, topology: 'sfu', sfu: 'livekit' } },
  {
    name: 'sfu-3-firefox-canvas-180p30',
    participants: { ...drawn('canvas', 320, 180, 30), count: 3, topology: 'sfu', browsers: ['chromium', 'chromium', 'firefox'] },
  },
  {
    name: 'camera-off-until-30s',
    participants: camera(640, 360, 30),
    act: (call) => {
      void cameraOn(call, false);
      setTimeout(() => void cameraOn(call, true), 30_000);
    },
  },
  // A person muting for half a minute: the silence is their choice, not an outage of the audio score's.
  { name: 'audio-muted-20-50s', participants: camera(640, 360, 30), mute: 'disabled' },
  { name: 'audio-off-sender-20-50s', participants: camera(640, 360, 30), mute: 'off-sender' },
  { name: 'audio-muted-dtx-20-50s', participants: { ...camera(640, 360, 30), opusDtx: true }, mute: 'disabled' },
];

const picked = process.env.BENCH_CLEAN_CONFIGS?.split(',');
const configs = picked ? CONFIGS.filter((c) => picked.includes(c.name)) : CONFIGS;

const lab = await startLabServer('clean');
const { api } = lab;

console.log(`clean-call benchmark: ${configs.length} real calls of ${CALL_S} s, two peers, nothing impaired`);
let falseAlarms = 0;
let seconds = 0;
for (const c of configs) {
  const run = await callOf(c);
  if (!run) continue;
  const callS = (Date.now() - run.startedAt) / 1000;
  // The call ends once its participants have been silent CALL_IDLE_TIMEOUT_S; its verdict and score are written then.
  await new Promise((r) => setTimeout(r, 8000));
  const d = await api<CallDiagnosis>(`/calls/${run.callId}/diagnosis`);
  const listed = (await api<CallList>(`/calls?q=${encodeURIComponent(run.callId)}${c.relayed ? '' : '&lab=true'}`)).calls.find(
    (x) => x.id === run.callId,
  );
  const alarms = d.issues.filter((i) => i.severity !== 'info');
  falseAlarms += alarms.length;
  seconds += callS;
  const lowers = Object.entries(d.scores.participants).map(([p, windows]) => {
    const sums = new Map<string, number>();
    for (const w of windows) for (const [f, points] of Object.entries(w.lowers)) sums.set(f, (sums.get(f) ?? 0) + points);
    const top = [...sums]
      .map(([f, s]) => [f, s / windows.length] as const)
      .filter(([, m]) => m >= 0.1)
      .sort((a, b) => b[1] - a[1]);
    return `${p}: ${top.map(([f, m]) => `${f} −${m.toFixed(1)}`).join(', ') || 'nothing notable'}`;
  });
  console.log(
    `\n${c.name}: ${alarms.length} false alarms (${((alarms.length * 3600) / callS).toFixed(1)} per call-hour); verdict ${listed?.quality ?? '?'}, score ${d.scores.summary.mean?.toFixed(2) ?? '–'}; lowered by ${lowers.join('; ')}`,
  );
  if (c.mute) console.log(`  ${await mutedReport(run, d)}`);
  for (const i of d.issues)
    console.log(
      `  ${i.participantId} ${i.type} ${i.severity} ${((i.start - run.startedAt) / 1000).toFixed(0)}–${i.end === null ? 'open' : ((i.end - run.startedAt) / 1000).toFixed(0)} s: ${i.cause}`,
    );
}
/** Runs the configuration's call; null (saying why) where this machine cannot. */
async function callOf(c: Config): Promise<{ callId: string; startedAt: number } | null> {
  if (c.relayed) {
    const missing = turnMissing();
    if (missing) {
      console.log(`\n${c.name}: left out (${missing})`);
      return null;
    }
    return relayedCall({
      server: lab.url,
      ingestKey: lab.ingestKey,
      callId: `clean-${c.name}-bench`,
      seconds: CALL_S,
      video: c.participants.video,
    });
  }
  const scenario = parseScenario({
    id: `clean-${c.name}`,
    title: `Clean: ${c.name}`,
    participants: { count: 2, topology: 'pair', ...c.participants },
    links: { mode: 'per-participant', uplink: {}, downlink: {} },
    schedule: [],
    durationS: CALL_S,
  });
  if (!scenario.ok) throw new Error(`${c.name}: ${scenario.error.field}: ${scenario.error.message}`);
  return runScenario({
    server: lab.url,
    ingestKey: lab.ingestKey,
    scenario: scenario.value,
    runId: 'bench',
    repetition: 1,
    ...(c.act || c.mute ? { onCall: c.act ?? muting(c.mute!) } : {}),
  });
}

await lab.stop();
console.log(
  `clean calls: ${configs.length} configurations, ${falseAlarms} false alarms (${((falseAlarms * 3600) / Math.max(1, seconds)).toFixed(1)} per call-hour)`,
);
process.exit(0);
