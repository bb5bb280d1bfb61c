import { readFileSync, writeFileSync } from 'node:fs';
import {
  describeConditions,
  measureRun,
  OUTCOME_SERIES_POINTS,
  type RunOutcome,
  type RunResult,
  type RunSummary,
  type SharedBottleneckSummary,
} from '@rtcscope/experiments';
import type { CallDetail, Series } from '@rtcscope/protocol';
import { compileTimeline, findScenario, LIBRARY, type LinkState, parseScenario, Scenario, timeScaleWarnings } from '@rtcscope/scenario';
import { hostname } from 'node:os';
import { Command, CommanderError } from 'commander';
import { LabAgent } from './agent/agent.js';
import { describeHost } from './agent/capabilities.js';
import { type Backend, BACKENDS, chooseBackend, probeHost } from './emulator/probe.js';
import { runScenario } from './runner/run-scenario.js';
import { SfuEventsRelay } from './sfu/events-relay.js';
import { postLiveKitEvents } from './sfu/livekit-webhooks.js';

export interface Output {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Loads a built-in scenario by id, or a scenario file by path; problems name the file and field. */
function load(ref: string): Scenario {
  const builtIn = findScenario(ref);
  if (builtIn) return structuredClone(builtIn);
  let text: string;
  try {
    text = readFileSync(ref, 'utf8');
  } catch {
    throw new UsageError(`"${ref}" is neither a built-in scenario (see "rtcscope-lab list") nor a readable file`);
  }
  const parsed = parseScenario(text);
  if (!parsed.ok) throw new UsageError(`${ref}: ${parsed.error.field}: ${parsed.error.message}`);
  return parsed.value;
}

class UsageError extends Error {}

function describeState(s: LinkState): string {
  const loss = s.loss.model === 'random' ? `${s.loss.pct} % loss` : `Gilbert-Elliott p=${s.loss.p} r=${s.loss.r}`;
  const parts = [s.rateKbps === null ? 'unlimited' : `${s.rateKbps} kbit/s`, `+${s.delayMs} ms`];
  if (s.jitterMs) parts.push(`±${s.jitterMs} ms`);
  parts.push(loss);
  if (s.queueMs !== null) parts.push(`queue ${s.queueMs} ms`);
  return parts.join(', ');
}

function program(io: Output): Command {
  const cli = new Command('rtcscope-lab')
    .description('WebRTC experiments on emulated links: scenarios, their schedules and (soon) runs')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });

  cli
    .command('list')
    .description('the built-in scenarios')
    .action(() => {
      for (const s of LIBRARY) io.out(`${s.id.padEnd(16)} ${`${s.durationS / 60} min`.padStart(7)}  ${s.title}`);
    });

  cli
    .command('show')
    .argument('<scenario>', 'built-in id or file')
    .description('print a scenario as JSON (a starting point for your own)')
    .action((ref: string) => io.out(JSON.stringify(load(ref), null, 2)));

  cli
    .command('validate')
    .argument('<file>', 'scenario file (JSON or YAML)')
    .description('check a scenario file; errors name the field')
    .action((file: string) => {
      const s = load(file);
      io.out(`${file}: valid scenario "${s.id}" (${s.durationS} s, ${s.repetitions} repetition(s))`);
    });

  cli
    .command('plan')
    .argument('<scenario>', 'built-in id or file')
    .option('--time-scale <factor>', 'shorten the run, e.g. 0.25', Number.parseFloat)
    .description('print the link conditions the run will apply, and when')
    .action((ref: string, options: { timeScale?: number }) => {
      const s = load(ref);
      if (options.timeScale !== undefined) {
        const scaled = parseScenario({ ...s, timeScale: options.timeScale });
        if (!scaled.ok) throw new UsageError(`--time-scale: ${scaled.error.message}`);
        Object.assign(s, scaled.value);
      }
      const timeline = compileTimeline(s);
      io.out(`${s.id}: ${timeline.durationS} s, links ${timeline.links.join(', ')}`);
      for (const p of timeline.points) io.out(`${p.t.toFixed(1).padStart(8)} s  ${p.link.padEnd(10)} ${describeState(p.state)}`);
      for (const w of timeScaleWarnings(s)) io.out(`warning: ${w}`);
    });

  cli
    .command('run')
    .argument('<scenario>', 'built-in id or file')
    .requiredOption('--server <url>', 'the rtcscope server the peers report to')
    .requiredOption('--ingest-key <key>', "the project's ingest key (ik_…)")
    .requiredOption('--api-key <key>', "the project's API key (rk_…), to read the results back", process.env.RTCSCOPE_API_KEY)
    .option('--time-scale <factor>', 'shorten the run, e.g. 0.25', Number.parseFloat)
    .option('--repetitions <n>', 'override the number of repetitions', (v) => Number.parseInt(v, 10))
    .option('--video <WxH@fps>', 'override the video source, e.g. 640x360@30 on a small host')
    .option('--sfu <janus|livekit>', 'run a scenario of topology sfu through this SFU instead of its own')
    .option('--json <file>', 'also write the summaries as JSON')
    .option('--backend <relay|kernel>', 'force a link emulation backend instead of the best this host allows')
    .description('run a scenario with real Chromium peers on emulated links and print set vs measured')
    .action(async (ref: string, options: RunCommandOptions) => {
      const s = withOverrides(load(ref), options);
      const runId = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
      const summaries: RunOutcome[] = [];
      const choice = pickBackend(chooseBackend(await probeHost()), options.backend);
      io.out(`link emulation: ${choice.backend} (${choice.why})`);
      for (let r = 1; r <= s.repetitions; r++) {
        io.out(`${s.id} repetition ${r}/${s.repetitions}`);
        const result = await runScenario({
          server: options.server,
          ingestKey: options.ingestKey,
          scenario: s,
          runId,
          repetition: r,
          backend: choice.backend,
          progress: (p) => io.out(`  ${p.message}`),
          sfuEvents: { url: new URL('/api/v1/sfu/janus/events', options.server).toString(), apiKey: options.apiKey },
          liveKitEvents: postLiveKitEvents(options.server, options.apiKey),
        });
        const summary = await measureRun(result, s, async (callId) => ({
          detail: await api<CallDetail>(options, `/calls/${callId}`),
          series: await api<Series>(options, `/calls/${callId}/series?maxPoints=${OUTCOME_SERIES_POINTS}`),
        }));
        summaries.push(summary);
        printSummary(summary.run, io);
        printSamples(result, io);
        if (summary.sharedBottleneck) printShared(summary.sharedBottleneck, io);
      }
      if (options.json) writeFileSync(options.json, JSON.stringify(summaries, null, 2));
    });

  cli
    .command('agent')
    .description("serve the dashboard: take runs from the server's queue, run them here, report progress and results")
    .requiredOption('--server <url>', 'the rtcscope server')
    .requiredOption('--token <token>', 'an agent token (at_…) from the Experiments page', process.env.RTCSCOPE_AGENT_TOKEN)
    .option('--name <name>', 'how the dashboard names this agent', hostname())
    .option('--max-calls <n>', 'calls at 640x360 this host sustains (measure with pnpm bench:lab)', (v) => Number.parseInt(v, 10))
    .action(async (options: { server: string; token: string; name: string; maxCalls?: number }) => {
      const capabilities = await describeHost(options.maxCalls);
      io.out(`link emulation: ${capabilities.backend}; ${capabilities.chromium}`);
      // The runs' Janus reports its rooms here, and the agent sends them on over its own connection.
      const sfuEvents = await SfuEventsRelay.open((post) => agent.sfuEvents(post));
      const agent = new LabAgent({
        server: options.server,
        token: options.token,
        name: options.name,
        version: '0.1.0',
        capabilities,
        log: (line) => io.out(`${new Date().toISOString()} ${line}`),
        run: (job, scenario, signal, progress) =>
          runScenario({
            server: options.server,
            ingestKey: job.ingestKey,
            scenario,
            runId: job.label,
            repetition: job.repetition,
            backend: capabilities.backend,
            signal,
            progress,
            sfuEvents: sfuEvents.target,
            liveKitEvents: (event): Promise<boolean> => agent.liveKitEvents(event),
          }),
      });
      await new Promise<void>((resolve) => {
        const stop = () => {
          agent.close();
          void sfuEvents.close();
          resolve();
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });

  cli
    .command('backends')
    .description('what link emulation this host allows, and which backend runs use')
    .action(async () => {
      const caps = await probeHost();
      const yes = (v: boolean) => (v ? 'yes' : 'no');
      io.out(`network namespaces: ${yes(caps.netns)}  netem: ${yes(caps.netem)}  tbf: ${yes(caps.tbf)}  htb: ${yes(caps.htb)}`);
      for (const note of caps.notes) io.out(`  ${note}`);
      const choice = chooseBackend(caps);
      io.out(`runs use: ${choice.backend} — ${choice.why}`);
    });

  cli
    .command('schema')
    .description('print the JSON Schema of scenario files')
    .action(() => io.out(JSON.stringify(Scenario, null, 2)));

  return cli;
}

function pickBackend(best: { backend: Backend; why: string }, forced: string | undefined): { backend: Backend; why: string } {
  if (forced === undefined) return best;
  if (forced !== 'relay' && forced !== 'kernel') throw new UsageError('--backend: expected relay or kernel');
  const backend = BACKENDS[forced];
  if (backend === BACKENDS.kernel && best.backend !== backend) throw new UsageError(`--backend kernel: not on this host (${best.why})`);
  return { backend, why: backend === best.backend ? best.why : 'forced with --backend' };
}

interface RunCommandOptions {
  server: string;
  ingestKey: string;
  apiKey: string;
  timeScale?: number;
  repetitions?: number;
  video?: string;
  sfu?: string;
  json?: string;
  backend?: string;
}

function withOverrides(s: Scenario, o: RunCommandOptions): Scenario {
  const patch: Record<string, unknown> = {};
  if (o.timeScale !== undefined) patch.timeScale = o.timeScale;
  if (o.repetitions !== undefined) patch.repetitions = o.repetitions;
  if (o.video !== undefined) {
    const m = /^(\d+)x(\d+)(?:@(\d+))?$/.exec(o.video);
    if (!m) throw new UsageError('--video: expected WIDTHxHEIGHT or WIDTHxHEIGHT@FPS, e.g. 640x360@30');
    patch.participants = {
      ...s.participants,
      video: { width: Number(m[1]), height: Number(m[2]), fps: Number(m[3] ?? s.participants.video.fps) },
    };
  }
  if (o.sfu !== undefined) patch.participants = { ...s.participants, ...(patch.participants ?? {}), sfu: o.sfu };
  const checked = parseScenario({ ...s, ...patch });
  if (!checked.ok) throw new UsageError(`${checked.error.field}: ${checked.error.message}`);
  return checked.value;
}

async function api<T>(o: RunCommandOptions, path: string): Promise<T> {
  const res = await fetch(`${o.server.replace(/\/$/, '')}/api/v1${path}`, { headers: { authorization: `Bearer ${o.apiKey}` } });
  if (!res.ok) throw new UsageError(`reading ${path} from the server failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const num = (v: number | null, digits = 0, unit = '') => (v === null ? '–' : `${v.toFixed(digits)}${unit}`);

function printSummary(s: RunSummary, io: Output): void {
  io.out(`  call ${s.callId}: Jain's index between the flows ${num(s.jain, 3)}`);
  for (const f of s.flows) {
    io.out(
      `  ${f.participant} sends ${num(f.meanKbps, 0, ' kbit/s')}, RTT ${num(f.meanRttMs, 1, ' ms')}, receives ${num(f.meanFps, 1, ' fps')}, ${num(f.meanLossPct, 2, ' % loss')}`,
    );
    for (const p of f.phases) {
      const set = p.rampFrom ? `${describeConditions(p.rampFrom)} → ${describeConditions(p.set)}` : describeConditions(p.set);
      io.out(
        `    ${num(p.from, 1).padStart(6)}–${num(p.to, 1).padEnd(6)} s  ${set}`.padEnd(56) +
          `sent ${num(p.meanKbps, 0, ' kbit/s')} (settled ${num(p.settledKbps, 0)}), received ${num(p.receivedKbps, 0, ' kbit/s')}, utilization ${num(p.utilization === null ? null : p.utilization * 100, 0, ' %')}, steady after ${num(p.steadyAfter, 0, ' s')}` +
          (p.receivedFps === null ? '' : `; far end sees ${num(p.receivedFps, 1, ' fps')}, ${num(p.receivedWidth, 0, ' px')} wide`),
      );
    }
  }
  for (const fig of s.paper?.figures ?? []) io.out(`  paper: ${fig.label}: ${fig.metric} ${fig.value}`);
}

/** What each participant's monitor stored: a run that lost or kept back samples says so. */
function printSamples(run: RunResult, io: Output): void {
  if (!run.samples?.length) return;
  const lost = run.samples.filter((t) => t.droppedRows + t.pendingRows > 0);
  io.out(
    `  sample rows the server stored: ${run.samples.map((t) => `${t.participant} ${t.storedRows}`).join(', ')}` +
      (lost.length
        ? `; not stored: ${lost.map((t) => `${t.participant} ${t.droppedRows} dropped, ${t.pendingRows} unsent`).join('; ')}`
        : '; none lost'),
  );
}

function printShared(s: SharedBottleneckSummary, io: Output): void {
  for (const c of s.calls) io.out(`  call ${c.callId}: ${num(c.meanKbps, 0, ' kbit/s')} on the bottleneck`);
  for (const f of s.tcp) io.out(`  TCP flow ${f.label}: ${num(f.meanKbps, 0, ' kbit/s')} on the bottleneck`);
  for (const g of s.byCompeting) {
    io.out(`  ${g.flows} flow(s) for ${g.seconds} s: Jain's index ${num(g.meanJain, 3)}, together ${num(g.meanTotalKbps, 0, ' kbit/s')}`);
  }
}

/** Runs the CLI; returns the exit code instead of exiting, so tests can call it. */
export async function main(argv: string[], io: Output): Promise<number> {
  try {
    await program(io).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof UsageError) {
      io.err(err.message);
      return 1;
    }
    throw err;
  }
}
