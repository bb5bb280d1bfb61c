import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { JanusSession } from './janus-api.js';
import { JANUS, JanusServer } from './janus-server.js';

const dirs: string[] = [];
const servers: JanusServer[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'rtcscope-janus-test-'));
  dirs.push(dir);
  return dir;
};

/** The Janus processes started with this configuration folder. */
async function janusOf(dir: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)('pgrep', ['-f', `^${JANUS} --config ${dir}/`]).catch(() => ({ stdout: '' }));
  return stdout.split('\n').filter(Boolean);
}

async function untilGone(dir: string): Promise<void> {
  await expect.poll(() => janusOf(dir), { timeout: 10_000 }).toEqual([]);
}

describe('JanusServer', () => {
  it("runs a VideoRoom over its HTTP API, on one of the machine's addresses, and stops when closed", async () => {
    const dir = folder();
    const janus = await JanusServer.start(dir);
    servers.push(janus);
    expect(janus.address).not.toBe('127.0.0.1');
    expect(await janusOf(dir)).toHaveLength(1);

    const session = await JanusSession.create(janus.url);
    const handle = await session.attach('janus.plugin.videoroom');
    await handle.request({ request: 'create', room: 7, publishers: 3 });
    const { data } = await handle.request({ request: 'list' });
    expect((data.list as { room: number }[]).map((r) => r.room)).toEqual([7]);
    await expect(handle.request({ request: 'join', room: 8, ptype: 'subscriber', streams: [{ feed: 1 }] })).rejects.toThrow(
      /Janus join: .*8/,
    );
    await session.destroy();

    janus.close();
    await untilGone(dir);
  });

  it('stops when the process that started it dies without closing it', async () => {
    const dir = folder();
    const script = `import { JanusServer } from ${JSON.stringify(new URL('./janus-server.ts', import.meta.url).pathname)}; await JanusServer.start(${JSON.stringify(dir)}); console.log('up'); setInterval(() => {}, 1000);`;
    const owner = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      owner.stdout.on('data', (d: Buffer) => d.toString().includes('up') && resolve());
      owner.once('exit', () => reject(new Error('the owner exited before Janus was up')));
    });
    expect(await janusOf(dir)).toHaveLength(1);
    owner.kill('SIGKILL');
    await untilGone(dir);
  });
});
