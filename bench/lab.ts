// Lab figures: (1) CPU the link emulator costs per Mbps it forwards, for each backend this host has;
// (2) how many concurrent calls (two peers at 640x360, 30 fps) one agent sustains before received
// FPS falls under 90 % of the source. Everything runs on this machine, as an agent would.
// Run: pnpm bench:lab   (BENCH_RATES=10,40 BENCH_MAX_CALLS=6 BENCH_CALL_S=15 to change it)
import { createSocket, type Socket } from 'node:dgram';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BACKENDS,
  chooseBackend,
  EmulatedLink,
  KernelLink,
  LabCall,
  launchChromium,
  PairRelay,
  probeHost,
  RunLinks,
  writeY4m,
} from '@rtcscope/lab';
import { compileTimeline, findScenario, parseScenario, type LinkState } from '@rtcscope/scenario';
import { freePort, startServerProcess } from '@rtcscope/server/testing';
import { cpuSeconds, machineCpu } from './proc.js';

const RATES = (process.env.BENCH_RATES ?? '10,40').split(',').map(Number);
const MAX_CALLS = Number(process.env.BENCH_MAX_CALLS ?? 6);
const CALL_S = Number(process.env.BENCH_CALL_S ?? 15);
const open: LinkState = { rateKbps: null, delayMs: 0, jitterMs: 0, loss: { model: 'random', pct: 0 }, queueMs: null };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const caps = await probeHost();
const choice = chooseBackend(caps);
console.log(
  `host: ${caps.netns ? 'namespaces' : 'no namespaces'}, netem ${caps.netem ? 'yes' : 'no'}, tbf ${caps.tbf ? 'yes' : 'no'}; runs use the ${choice.backend}`,
);

async function udpSocket(): Promise<Socket> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve));
  return s;
}

/**
 * Offers `mbps` of 1200-byte datagrams for 5 s to `target` and returns what arrived and the CPU
 * seconds this process (plus `extraPids`) used meanwhile.
 */
async function push(mbps: number, send: (s: Socket, packet: Buffer) => void, receiver: Socket, extraPids: number[]) {
  const sender = await udpSocket();
  let bytes = 0;
  receiver.on('message', (m) => (bytes += m.length));
  const packet = Buffer.alloc(1200);
  const perTick = Math.max(1, Math.round((mbps * 1e6) / 8 / 1200 / 200));
  const cpu0 = process.cpuUsage();
  const extra0 = cpuSeconds((pid) => extraPids.includes(pid));
  const t0 = performance.now();
  const timer = setInterval(() => {
    for (let k = 0; k < perTick; k++) send(sender, packet);
  }, 5);
  await sleep(5000);
  clearInterval(timer);
  await sleep(300);
  const seconds = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu0);
  const cpu = (used.user + used.system) / 1e6 + cpuSeconds((pid) => extraPids.includes(pid)) - extra0;
  sender.close();
  receiver.removeAllListeners('message');
  return { deliveredMbps: (bytes * 8) / 1e6 / 5, cpuShare: cpu / seconds };
}

console.log(
  '\nemulator CPU per Mbps forwarded (1200-byte UDP datagrams, 5 s each; the share of one core above sending and receiving alone)',
);
console.log('backend'.padEnd(48), 'offered'.padStart(9), 'delivered'.padStart(10), 'CPU'.padStart(7), 'per Mbps'.padStart(9));
for (const mbps of RATES) {
  const receiver = await udpSocket();
  const baseline = await push(mbps, (s, p) => s.send(p, receiver.address().port, '127.0.0.1'), receiver, []);
  const backends = [BACKENDS.relay, ...(choice.backend === BACKENDS.kernel ? [BACKENDS.kernel] : [])];
  for (const backend of backends) {
    const link = backend === BACKENDS.kernel ? await KernelLink.open(open) : new EmulatedLink(open);
    const relay = await PairRelay.open([link], [new EmulatedLink(open)]);
    const pids = link instanceof KernelLink && link.namespace.reflectorPid ? [link.namespace.reflectorPid] : [];
    // The relay only takes packets from the peer it knows: send from that port.
    const from = await udpSocket();
    relay.connect({ address: '127.0.0.1', port: from.address().port }, { address: '127.0.0.1', port: receiver.address().port });
    const got = await push(mbps, (_s, p) => from.send(p, relay.forB.port, relay.forB.address), receiver, pids);
    from.close();
    relay.close();
    if (link instanceof KernelLink) await link.close();
    const cpu = Math.max(0, got.cpuShare - baseline.cpuShare);
    console.log(
      backend.padEnd(48),
      `${mbps} Mbps`.padStart(9),
      `${got.deliveredMbps.toFixed(1)}`.padStart(10),
      `${(cpu * 100).toFixed(1)} %`.padStart(7),
      `${((cpu * 100) / got.deliveredMbps).toFixed(2)} %`.padStart(9),
    );
  }
  receiver.close();
}

console.log(
  `\nconcurrent calls on one agent (${choice.backend}; 2 peers per call at 640x360, 30 fps; ${CALL_S} s per step after a 10 s warm-up)`,
);
const dir = mkdtempSync(join(tmpdir(), 'rtcscope-bench-lab-'));
chmodSync(dir, 0o755);
const server = await startServerProcess({
  DATA_DIR: join(dir, 'data'),
  PORT: String(await freePort()),
  EMBEDDED_PG_PORT: String(await freePort()),
  LOG_LEVEL: 'error',
});
const keys = JSON.parse(readFileSync(join(dir, 'data/local-project.json'), 'utf8')) as { ingestKey: string };
const y4m = join(dir, 'camera.y4m');
await writeY4m(y4m, { width: 640, height: 360, fps: 30, seconds: 2 });
const browser = await launchChromium(y4m, join(dir, 'home'));
const checked = parseScenario({
  ...findScenario('mesh-2')!,
  participants: { ...findScenario('mesh-2')!.participants, video: { width: 640, height: 360, fps: 30 } },
});
if (!checked.ok) throw new Error(checked.error.message);
const scenario = checked.value;
const links = await RunLinks.open(scenario, RunLinks.initialStates(compileTimeline(scenario)), choice.backend);
const calls: LabCall[] = [];
console.log('calls'.padStart(5), 'received fps min'.padStart(17), 'mean'.padStart(6), 'machine CPU'.padStart(12));
let sustained = 0;
try {
  for (let n = 1; n <= MAX_CALLS; n++) {
    calls.push(
      await LabCall.start({
        browser,
        firefox: null,
        server: server.url,
        ingestKey: keys.ingestKey,
        callId: `bench-${n}`,
        scenario,
        metadata: { bench: true },
        links,
      }),
    );
    await sleep(10_000);
    const before = await Promise.all(calls.map((c) => c.snapshots()));
    const cpu0 = machineCpu();
    await sleep(CALL_S * 1000);
    const after = await Promise.all(calls.map((c) => c.snapshots()));
    const cpu1 = machineCpu();
    const fps = after.flatMap((pages, c) =>
      pages.map((s, p) => {
        const b = before[c]![p]!;
        return s.in && b.in ? (s.in.framesDecoded - b.in.framesDecoded) / ((s.in.timestamp - b.in.timestamp) / 1000) : 0;
      }),
    );
    const min = Math.min(...fps);
    const mean = fps.reduce((x, y) => x + y, 0) / fps.length;
    const busy = (cpu1.busy - cpu0.busy) / (cpu1.total - cpu0.total);
    console.log(
      String(n).padStart(5),
      min.toFixed(1).padStart(17),
      mean.toFixed(1).padStart(6),
      `${(busy * 100).toFixed(0)} %`.padStart(12),
    );
    if (min < 27) break;
    sustained = n;
  }
} finally {
  await Promise.all(calls.map((c) => c.hangUp()));
  await browser.close();
  await links.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
console.log(`\nsustained: ${sustained} concurrent call(s) with every receiver at ≥ 27 fps (90 % of 30)`);
process.exit(0);
