import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppliedChange, RunCall, RunResult } from '@rtcscope/experiments';
import { compileTimeline, type LinkId, type LinkState, type Scenario } from '@rtcscope/scenario';
import { cpuLimitUsable } from '../browser/cpu-limit.js';
import { launchChromium } from '../browser/chromium.js';
import type { Browser as FirefoxBrowser } from 'puppeteer-core';
import { FIREFOX, launchFirefox } from '../browser/firefox.js';
import { type Backend, BACKENDS, chooseBackend, probeHost } from '../emulator/probe.js';
import { TcpFlow } from '../emulator/tcp-flow.js';
import { writeY4m } from '../browser/y4m.js';
import { type JanusEventsTarget, JanusServer } from '../sfu/janus-server.js';
import { type LiveKitEventsForward, LiveKitServer } from '../sfu/livekit-server.js';
import { LabCall } from './call.js';
import { RunLinks } from './links.js';

export interface RunOptions {
  server: string;
  ingestKey: string;
  scenario: Scenario;
  /** Names the run in call ids and metadata. */
  runId: string;
  repetition: number;
  progress?: (p: { fraction: number; message: string; callId?: string }) => void;
  /** Ends the run early: the calls hang up and the run rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The link emulation backend; by default the best this host allows (see chooseBackend). */
  backend?: Backend;
  /** Told the main call once it is connected: for what the schedule cannot set, e.g. a benchmark starving a browser of CPU. */
  onCall?: (call: LabCall) => void;
  /** Where the SFU of a run through Janus reports its own view of the room (none: it reports nothing). */
  sfuEvents?: JanusEventsTarget;
  /** Where a run through LiveKit hands each of LiveKit's webhook events (none: LiveKit posts none). */
  liveKitEvents?: LiveKitEventsForward;
  /** The clip Chromium's fake camera plays, of the scenario's size and rate (a numbered clip, to measure what arrived); by default a moving pattern the run writes. */
  camera?: string;
  /** A WAV file Chromium's fake microphone plays in a loop (known speech, to measure what was heard); by default its beeps. */
  microphone?: string;
  /**
   * Firefox plays what it receives into a sound server of its own (`launchFirefox`), so that its page can
   * record what it heard. Only where asked: with one, a Janus call of three browsers scored its received
   * audio 2.5–2.7 where it scored 4.3 without (docs/scores.md), not yet explained.
   */
  firefoxHears?: boolean;
  /**
   * A script each Chromium participant's page runs before any of its own: a third party's client that
   * wraps RTCPeerConnection, as apps embed one (bench:recordings records its calls with Jitsi's rtcstats).
   */
  pageScript?: string;
}

/**
 * Runs a scenario: Chromium peers, or Firefox where the scenario says (a pair or a full mesh), monitored by the rtcscope SDK, their media
 * carried by the user-space relay whose links follow the scenario's schedule, plus the scenario's extra
 * calls joining and leaving on the same shared bottleneck. Works on any kernel and without privileges
 * (CPU limits and TCP cross traffic need root); every packet stays on loopback.
 */
export async function runScenario(o: RunOptions): Promise<RunResult> {
  const { scenario } = o;
  const backend = o.backend ?? chooseBackend(await probeHost()).backend;
  if (scenario.crossTraffic?.some((c) => c.kind === 'tcp') && backend !== BACKENDS.kernel) {
    throw new Error(
      `${scenario.id}: TCP cross traffic needs the kernel-rate backend (network namespaces and tbf: run as root, or grant CAP_NET_ADMIN and CAP_SYS_ADMIN); this run would use the ${backend}`,
    );
  }
  const cpu = cpuLimitUsable();
  if (scenario.participants.cpu?.some((c) => c !== null) && !cpu.ok)
    throw new Error(`${scenario.id}: a participant has a CPU limit, and this host cannot hold one: ${cpu.why}`);
  o.signal?.throwIfAborted();
  const report = o.progress ?? (() => {});
  const timeline = compileTimeline(scenario);
  const scale = scenario.timeScale;
  const links = await RunLinks.open(scenario, RunLinks.initialStates(timeline), backend);
  const dir = mkdtempSync(join(tmpdir(), 'rtcscope-run-'));
  const { width, height, fps } = scenario.participants.video;
  const y4m = o.camera ?? join(dir, `camera-${width}x${height}.y4m`);
  if (!o.camera) await writeY4m(y4m, { width, height, fps, seconds: 2 });
  const browser = await launchChromium(y4m, join(dir, 'home'), o.microphone ? { microphone: o.microphone } : {});
  let firefox: FirefoxBrowser | null = null;
  let sfu: JanusServer | LiveKitServer | null = null;
  /** What the run started, stopped again: when it ends, or when starting the rest failed. */
  const release = async () => {
    await browser.close();
    await firefox?.close();
    await sfu?.close();
    await links.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (scenario.participants.browsers?.includes('firefox')) firefox = await startFirefox(join(dir, 'firefox'), o.firefoxHears ?? false);
    if (scenario.participants.topology === 'sfu') sfu = await startSfu(scenario, dir, o);
  } catch (err) {
    await release();
    throw err;
  }
  const timers: ReturnType<typeof setTimeout>[] = [];
  const live = new Set<LabCall>();
  const tcp: { label: string; joinedAt: number; leftAt: number; flow: TcpFlow }[] = [];
  const setup = (index: number) => ({
    browser,
    firefox,
    server: o.server,
    ingestKey: o.ingestKey,
    callId: `${scenario.id}-${o.runId}-r${o.repetition}${index ? `-x${index}` : ''}`,
    scenario,
    metadata: { lab: true, scenario: scenario.id, run: o.runId, repetition: o.repetition, flow: index },
    links,
    ...(sfu ? { sfu } : {}),
    ...(o.pageScript ? { pageScript: o.pageScript } : {}),
  });
  try {
    const main = await LabCall.start(setup(0));
    live.add(main);
    o.onCall?.(main);
    const startedAt = Date.now();
    const elapsed = () => (Date.now() - startedAt) / 1000;
    // A time-scaled run's length is a product of floats (102.00000000000001 s): said to a tenth of a second.
    const runS = Number(timeline.durationS.toFixed(1));
    report({ fraction: 0, message: `call ${main.callId} connected; running ${runS} s`, callId: main.callId });
    const log = (message: string) => report({ fraction: Math.min(1, elapsed() / timeline.durationS), message, callId: main.callId });
    const calls: RunCall[] = [{ callId: main.callId, joinedAt: 0, leftAt: timeline.durationS }];
    const failures: unknown[] = [];
    const mark = (link: LinkId, state: LinkState) =>
      main
        .mark({ link, rateKbps: state.rateKbps, delayMs: state.delayMs, lossPct: state.loss.model === 'random' ? state.loss.pct : null })
        .catch((err: unknown) => failures.push(err));
    const applied: AppliedChange[] = timeline.points.filter((p) => p.t === 0).map((p) => ({ t: 0, link: p.link, state: p.state }));
    for (const a of applied) void mark(a.link, a.state);
    for (const p of timeline.points.filter((q) => q.t > 0)) {
      timers.push(
        setTimeout(() => {
          links.set(p.link, p.state);
          applied.push({ t: elapsed(), link: p.link, state: p.state });
          void mark(p.link, p.state);
        }, p.t * 1000),
      );
    }
    for (const a of scenario.actions ?? [])
      timers.push(
        setTimeout(
          () => {
            main
              .act(a.participant, a.do)
              .then(() => log(`p${a.participant}: ${a.do} at ${elapsed().toFixed(1)} s`))
              .catch((err: unknown) => failures.push(err));
          },
          a.at * scale * 1000,
        ),
      );
    // Extra calls and TCP flows join and leave on their own timers; a failure is reported when the run ends.
    for (const [k, c] of (scenario.crossTraffic ?? []).entries()) {
      if (c.kind === 'tcp') {
        timers.push(
          setTimeout(
            () => {
              TcpFlow.start(links.tcpBottleneck())
                .then((flow) => {
                  const record = { label: `tcp-${k + 1}`, joinedAt: elapsed(), leftAt: timeline.durationS, flow };
                  tcp.push(record);
                  log(`TCP bulk flow ${record.label} started at ${record.joinedAt.toFixed(1)} s`);
                  if (c.until === undefined) return;
                  timers.push(
                    setTimeout(
                      () => {
                        flow.stop();
                        record.leftAt = elapsed();
                        log(`TCP bulk flow ${record.label} stopped at ${record.leftAt.toFixed(1)} s`);
                      },
                      Math.max(0, c.until * scale * 1000 - (Date.now() - startedAt)),
                    ),
                  );
                })
                .catch((err: unknown) => failures.push(err));
            },
            c.at * scale * 1000,
          ),
        );
        continue;
      }
      timers.push(
        setTimeout(
          () => {
            LabCall.start(setup(k + 1))
              .then((call) => {
                live.add(call);
                const record: RunCall = { callId: call.callId, joinedAt: elapsed(), leftAt: timeline.durationS };
                calls.push(record);
                log(`call ${call.callId} joined at ${record.joinedAt.toFixed(1)} s`);
                if (c.until === undefined) return;
                timers.push(
                  setTimeout(
                    () => {
                      live.delete(call);
                      record.leftAt = elapsed();
                      log(`call ${call.callId} left at ${record.leftAt.toFixed(1)} s`);
                      call.hangUp().catch((err: unknown) => failures.push(err));
                    },
                    Math.max(0, c.until * scale * 1000 - (Date.now() - startedAt)),
                  ),
                );
              })
              .catch((err: unknown) => failures.push(err));
          },
          c.at * scale * 1000,
        ),
      );
    }
    const progressTimer = setInterval(() => log(`${Math.round(elapsed())} / ${runS} s`), 5000);
    try {
      await untilOrAborted(timeline.durationS * 1000, o.signal);
    } finally {
      clearInterval(progressTimer);
    }
    const [tallies = []] = await Promise.all([main, ...[...live].filter((c) => c !== main)].map((c) => c.hangUp()));
    live.clear();
    const samples = tallies.flatMap((t, k) => (t ? [{ participant: `p${k}`, ...t }] : []));
    for (const f of tcp) f.flow.stop();
    if (failures.length) throw failures[0];
    const tcpFlows = tcp.map((f) => ({
      label: f.label,
      joinedAt: f.joinedAt,
      leftAt: f.leftAt,
      rates: f.flow.rates().map((r) => ({ t: (r.t - startedAt) / 1000, kbps: r.kbps })),
    }));
    return {
      callId: main.callId,
      calls,
      startedAt,
      endedAt: Date.now(),
      applied,
      backend,
      samples,
      ...(tcpFlows.length ? { tcpFlows } : {}),
    };
  } finally {
    for (const t of timers) clearTimeout(t);
    for (const f of tcp) f.flow.stop();
    // What the run started is released even when a call fails to end cleanly: its media and samples are
    // in by then, so the run stands, and the failure is said.
    const ended = await Promise.allSettled([...live].map((c) => c.hangUp()));
    await release();
    for (const e of ended)
      if (e.status === 'rejected') report({ fraction: 1, message: `ending a call left something behind: ${String(e.reason)}` });
  }
}

/** The SFU a scenario goes through (Janus unless it names LiveKit), in its own folder of the run's. */
function startSfu(
  scenario: Scenario,
  run: string,
  o: Pick<RunOptions, 'sfuEvents' | 'liveKitEvents'>,
): Promise<JanusServer | LiveKitServer> {
  const livekit = scenario.participants.sfu === 'livekit';
  const dir = join(run, livekit ? 'livekit' : 'janus');
  mkdirSync(dir);
  return livekit ? LiveKitServer.start(dir, o.liveKitEvents) : JanusServer.start(dir, o.sfuEvents);
}

/** Firefox for the participants a scenario puts in it, or an error saying how to get it. */
function startFirefox(profile: string, hears: boolean) {
  if (!existsSync(FIREFOX))
    throw new Error(
      `the scenario puts participants in Firefox, and this agent has none at ${FIREFOX}: install it (apt-get install firefox-esr) or set FIREFOX_PATH`,
    );
  return launchFirefox(profile, { hears });
}

function untilOrAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
}
