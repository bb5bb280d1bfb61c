import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './commands.js';

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const dir = mkdtempSync(join(tmpdir(), 'rtcscope-lab-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rtcscope-lab', () => {
  it('lists the built-in scenarios', async () => {
    const r = await run('list');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^bw-steps\s+5 min\s+Bandwidth changing every minute$/m);
  });

  it('validates a file and names the field that is wrong', async () => {
    const good = join(dir, 'good.json');
    writeFileSync(good, (await run('show', 'bw-steps')).out);
    expect(await run('validate', good)).toMatchObject({ code: 0, out: expect.stringContaining('valid scenario "bw-steps"') });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...JSON.parse((await run('show', 'bw-steps')).out), durationS: 30 }));
    expect(await run('validate', bad)).toMatchObject({ code: 1, err: `${bad}: schedule[1].at: 60 s is after the end (30 s)` });
    expect(await run('validate', join(dir, 'missing.json'))).toMatchObject({
      code: 1,
      err: expect.stringContaining('neither a built-in scenario'),
    });
  });

  it('plans a run, time-scaled', async () => {
    const r = await run('plan', 'bw-steps', '--time-scale', '0.1');
    expect(r.code).toBe(0);
    expect(r.out).toContain('bw-steps: 30 s');
    expect(r.out).toMatch(/^\s+6\.0 s {2}p0-up\s+3000 kbit\/s, \+0 ms, 0 % loss$/m);
    expect(r.out).toMatch(/^warning: At time scale 0\.1 the shortest condition lasts 6\.0 s/m);
    expect((await run('plan', 'bw-steps')).out).not.toContain('warning');
    expect((await run('plan', 'bw-steps', '--time-scale', '2')).code).toBe(1);
  });

  it('refuses an SFU it does not run, and an SFU for a call that goes through none, before it starts anything', async () => {
    const runWith = (scenario: string, sfu: string) =>
      run('run', scenario, '--server', 'http://127.0.0.1:9', '--ingest-key', 'ik_x', '--api-key', 'rk_x', '--sfu', sfu);
    expect(await runWith('sfu-3', 'mediasoup')).toMatchObject({ code: 1, err: expect.stringContaining('participants.sfu') });
    expect(await runWith('bw-steps', 'livekit')).toMatchObject({ code: 1, err: expect.stringContaining('topology "sfu"') });
  });

  it('tells which link emulation runs use and why', { timeout: 30_000 }, async () => {
    const r = await run('backends');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/netem: (yes|no)/);
    expect(r.out).toMatch(/runs use: (user-space relay|kernel rate \(tbf\) \+ user-space delay and loss) — /);
  });

  it('prints the JSON Schema and refuses unknown commands', async () => {
    expect(JSON.parse((await run('schema')).out).title).toBe('rtcscope lab scenario');
    expect((await run('fly')).code).not.toBe(0);
  });
});
