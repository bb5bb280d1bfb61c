import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileTimeline, type LinkId, type LinkState, type Scenario } from '@rtcscope/scenario';
import { launchChromium, loopbackContext } from '../browser/chromium.js';
import { connectPeers, hangUp, openPeer } from '../browser/peer.js';
import { loopbackCandidate, withOnlyCandidate } from '../browser/sdp.js';
import { writeY4m } from '../browser/y4m.js';
import { PairRelay } from '../emulator/udp-relay.js';
import { PairLinks } from './links.js';

export interface RunOptions {
  server: string;
  ingestKey: string;
  scenario: Scenario;
  /** Names the run in call ids and metadata. */
  runId: string;
  repetition: number;
  progress?: (line: string) => void;
}

export interface AppliedChange {
  /** Seconds after the call connected, as applied (not as planned). */
  t: number;
  link: LinkId;
  state: LinkState;
}

export interface RunResult {
  callId: string;
  /** Epoch ms when the call connected: t = 0 of the schedule. */
  startedAt: number;
  endedAt: number;
  applied: AppliedChange[];
  backend: 'user-space relay';
}

/**
 * Runs a two-party scenario: two Chromium peers monitored by the rtcscope SDK, their media carried by
 * the user-space relay whose links follow the scenario's schedule. Works on any kernel and without
 * privileges; every packet stays on loopback.
 */
export async function runPair(o: RunOptions): Promise<RunResult> {
  const { scenario } = o;
  if (scenario.participants.count !== 2) throw new Error(`${scenario.id}: this runner runs two-party calls; mesh calls come next`);
  if (scenario.crossTraffic?.length) throw new Error(`${scenario.id}: cross traffic (extra calls, TCP) is not supported by this runner yet`);
  const log = o.progress ?? (() => {});
  const timeline = compileTimeline(scenario);
  const links = new PairLinks(scenario, PairLinks.initialStates(timeline));
  const relay = await PairRelay.open(links.aToB, links.bToA);
  const dir = mkdtempSync(join(tmpdir(), 'rtcscope-run-'));
  const { width, height, fps } = scenario.participants.video;
  const y4m = join(dir, `camera-${width}x${height}.y4m`);
  await writeY4m(y4m, { width, height, fps, seconds: 2 });
  const browser = await launchChromium(y4m, join(dir, 'home'));
  const callId = `${scenario.id}-${o.runId}-r${o.repetition}`;
  const timers: ReturnType<typeof setTimeout>[] = [];
  try {
    const pages = await Promise.all([0, 1].map(async () => (await loopbackContext(browser)).newPage()));
    for (const [k, page] of pages.entries()) {
      await openPeer(page, {
        server: o.server,
        ingestKey: o.ingestKey,
        callId,
        participantId: `p${k}`,
        metadata: { lab: true, scenario: scenario.id, run: o.runId, repetition: o.repetition },
        video: scenario.participants.video,
        codec: scenario.participants.codec,
      });
    }
    let a: ReturnType<typeof loopbackCandidate> = null;
    let b: ReturnType<typeof loopbackCandidate> = null;
    await connectPeers(
      pages[0]!,
      pages[1]!,
      {
        offer: (sdp) => {
          a = loopbackCandidate(sdp);
          return withOnlyCandidate(sdp, relay.forA);
        },
        answer: (sdp) => {
          b = loopbackCandidate(sdp);
          if (!a || !b) throw new Error('a peer offered no UDP candidate on 127.0.0.1');
          relay.connect(a, b);
          return withOnlyCandidate(sdp, relay.forB);
        },
      },
      scenario.participants.maxBitrateKbps,
    );
    const startedAt = Date.now();
    log(`call ${callId} connected; running ${timeline.durationS} s`);
    const applied: AppliedChange[] = timeline.points.filter((p) => p.t === 0).map((p) => ({ t: 0, link: p.link, state: p.state }));
    for (const p of timeline.points.filter((q) => q.t > 0)) {
      timers.push(
        setTimeout(() => {
          links.set(p.link, p.state);
          applied.push({ t: (Date.now() - startedAt) / 1000, link: p.link, state: p.state });
        }, p.t * 1000),
      );
    }
    const progressTimer = setInterval(() => log(`${Math.round((Date.now() - startedAt) / 1000)} / ${timeline.durationS} s`), 10_000);
    await new Promise((r) => setTimeout(r, timeline.durationS * 1000));
    clearInterval(progressTimer);
    await Promise.all(pages.map((p) => hangUp(p)));
    return { callId, startedAt, endedAt: Date.now(), applied, backend: 'user-space relay' };
  } finally {
    for (const t of timers) clearTimeout(t);
    await browser.close();
    relay.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
