// The pre-call test against set conditions: Debian's coturn beside the server (npm start's own), the
// lab's user-space link emulator on the path between the browser and it (a UDP proxy in front of
// coturn's port), and the SDK's runPrecallTest in real Chromium. Prints, per condition, what was set
// and what the test measured: throughput (the lower of upload and download through the relay), the
// round trip to the TURN server, loss.
// Run: pnpm bench:precall   (BENCH_PRECALL_S=15 for the media step's length; BENCH_BROWSER=firefox;
// BENCH_CONDITIONS=cap,loss for the conditions whose names hold one of these)
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmulatedLink, firefoxPeer, launchChromium, launchFirefox, runPrecallInPage, UdpProxy, writeY4m } from '@rtcscope/lab';
import type { LinkState } from '@rtcscope/scenario';
import { freePort, localTurnSecret, startServerProcess } from '@rtcscope/server/testing';
import { turnMissing } from './turn-call.js';

const MEDIA_S = Number(process.env.BENCH_PRECALL_S ?? 15);
const FIREFOX = process.env.BENCH_BROWSER === 'firefox';
const open: LinkState = { rateKbps: null, delayMs: 0, jitterMs: 0, loss: { model: 'random', pct: 0 }, queueMs: null };

interface Condition {
  name: string;
  /** The browser's uplink toward the TURN server, and its downlink back. */
  up: Partial<LinkState>;
  down: Partial<LinkState>;
}
const CONDITIONS: Condition[] = [
  { name: 'open', up: {}, down: {} },
  { name: 'cap 500 kbit/s up', up: { rateKbps: 500 }, down: {} },
  { name: 'cap 1000 kbit/s up', up: { rateKbps: 1000 }, down: {} },
  { name: 'cap 2500 kbit/s down', up: {}, down: { rateKbps: 2500 } },
  { name: '25 ms each way', up: { delayMs: 25 }, down: { delayMs: 25 } },
  { name: '60 ms each way', up: { delayMs: 60 }, down: { delayMs: 60 } },
  { name: '2 % loss up', up: { loss: { model: 'random', pct: 2 } }, down: {} },
  { name: '5 % loss up', up: { loss: { model: 'random', pct: 5 } }, down: {} },
  {
    name: 'cap 1200 up, 40 ms each way, 2 % loss up',
    up: { rateKbps: 1200, delayMs: 40, loss: { model: 'random', pct: 2 } },
    down: { delayMs: 40 },
  },
];

const chosen = (process.env.BENCH_CONDITIONS ?? '').split(',').filter(Boolean);
const conditions = chosen.length ? CONDITIONS.filter((c) => chosen.some((word) => c.name.includes(word))) : CONDITIONS;
const missing = turnMissing();
if (missing) {
  console.log(`bench:precall ${missing}`);
  process.exit(0);
}
const dir = mkdtempSync(join(tmpdir(), 'rtcscope-bench-precall-'));
chmodSync(dir, 0o755);
const turnPort = await freePort();
const dataDir = join(dir, 'data');
const server = await startServerProcess({
  DATA_DIR: dataDir,
  PORT: String(await freePort()),
  EMBEDDED_PG_PORT: String(await freePort()),
  LOG_LEVEL: 'error',
  LOCAL_TURN: 'on',
  LOCAL_TURN_PORT: String(turnPort),
});
const keys = JSON.parse(readFileSync(join(dataDir, 'local-project.json'), 'utf8')) as { ingestKey: string; apiKey: string };
const y4m = join(dir, 'camera.y4m');
await writeY4m(y4m, { width: 640, height: 360, fps: 30, seconds: 2 });
const browser = FIREFOX ? null : await launchChromium(y4m, join(dir, 'home'));
const firefox = FIREFOX ? await launchFirefox(join(dir, 'firefox')) : null;
const up = new EmulatedLink(open);
const down = new EmulatedLink(open);
const proxy = await UdpProxy.open({ address: '127.0.0.1', port: turnPort }, [up], [down]);
const put = await fetch(`${server.url}/api/v1/project/turn`, {
  method: 'PUT',
  headers: { authorization: `Bearer ${keys.apiKey}`, 'content-type': 'application/json' },
  body: JSON.stringify({ urls: [`turn:127.0.0.1:${proxy.address.port}?transport=udp`], secret: localTurnSecret(dataDir) }),
});
if (!put.ok) throw new Error(`the TURN settings were refused: ${await put.text()}`);

const f = (v: number | undefined, digits = 0) => (v === undefined ? '–' : v.toFixed(digits));
console.log(`browser: ${FIREFOX ? 'Firefox' : 'Chromium'}; media step ${MEDIA_S} s; one run per condition`);
console.log(
  ['condition'.padEnd(44), 'set kbit/s', 'measured', 'error', ' set RTT', 'measured (min-max)', ' set loss', 'measured', 'verdict'].join(
    '  ',
  ),
);
try {
  for (const c of conditions) {
    up.set({ ...open, ...c.up });
    down.set({ ...open, ...c.down });
    const page = FIREFOX ? firefoxPeer(await firefox!.newPage()) : await browser!.newPage();
    const r = await runPrecallInPage(page, server.url, keys.ingestKey, { durationS: MEDIA_S, camera: { width: 640, height: 360 } });
    const caps = [c.up.rateKbps, c.down.rateKbps].filter((v): v is number => typeof v === 'number');
    const cap = caps.length ? Math.min(...caps) : null;
    // The browser's round trip to the TURN server: the delay set each way, twice.
    const rtt = (c.up.delayMs ?? 0) + (c.down.delayMs ?? 0);
    const loss = c.up.loss?.model === 'random' ? c.up.loss.pct : 0;
    const m = r.media;
    console.log(
      [
        c.name.padEnd(44),
        (cap === null ? 'open' : String(cap)).padStart(10),
        `${m?.throughputAtLeast ? '≥' : ' '}${f(m?.throughputKbps)}`.padStart(8),
        (cap === null || !m ? '' : `${(((m.throughputKbps - cap) / cap) * 100).toFixed(1)} %`).padStart(5),
        `${rtt} ms`.padStart(8),
        `${f(m?.rttMs?.avg, 1)} (${f(m?.rttMs?.min, 1)}-${f(m?.rttMs?.max, 1)})`.padStart(18),
        `${loss} %`.padStart(9),
        `${f(m?.lossPct?.avg, 2)} %`.padStart(8),
        r.verdict.padEnd(7),
        (m?.steps ?? []).map((s) => `${s.targetKbps}:${Math.round(s.kbps)}`).join(' '),
      ].join('  '),
    );
    await (page as { close?: () => Promise<void> }).close?.();
  }
} finally {
  proxy.close();
  await browser?.close();
  await firefox?.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
