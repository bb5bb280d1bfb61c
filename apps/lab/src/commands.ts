import { readFileSync } from 'node:fs';
import { compileTimeline, findScenario, LIBRARY, type LinkState, parseScenario, Scenario } from '@rtcscope/scenario';
import { Command, CommanderError } from 'commander';

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
    .argument('<file>', 'scenario file (JSON)')
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
    });

  cli
    .command('schema')
    .description('print the JSON Schema of scenario files')
    .action(() => io.out(JSON.stringify(Scenario, null, 2)));

  return cli;
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
