import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RoomServiceClient } from 'livekit-server-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { LIVEKIT, LiveKitServer } from './livekit-server.js';

const dirs: string[] = [];
const servers: LiveKitServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The LiveKit processes started with this configuration folder. */
async function liveKitOf(dir: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)('pgrep', ['-f', `^${LIVEKIT} --config ${dir}/`]).catch(() => ({ stdout: '' }));
  return stdout.split('\n').filter(Boolean);
}

describe('LiveKitServer', () => {
  it("runs with keys and ports of its own, its media on the machine's address, posts its webhooks to the run, and stops when closed", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rtcscope-livekit-test-'));
    dirs.push(dir);
    const events: { event?: string; room?: { name?: string } }[] = [];
    const livekit = await LiveKitServer.start(dir, async (e) => {
      events.push(e as (typeof events)[number]);
      return true;
    });
    servers.push(livekit);
    expect(livekit.media.address).not.toBe('127.0.0.1');
    expect(livekit.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    expect(await liveKitOf(dir)).toHaveLength(1);

    // Its room API takes the run's keys and nobody else's.
    const rooms = new RoomServiceClient(livekit.httpUrl, livekit.apiKey, livekit.apiSecret);
    await rooms.createRoom({ name: 'lab-room' });
    await expect(new RoomServiceClient(livekit.httpUrl, livekit.apiKey, 'x'.repeat(64)).listRooms()).rejects.toThrow();
    await rooms.deleteRoom('lab-room');
    // LiveKit's own webhooks, as it posts them, reach the run.
    await expect
      .poll(() => events.map((e) => `${e.event} ${e.room?.name}`), { timeout: 10_000 })
      .toEqual(['room_started lab-room', 'room_finished lab-room']);

    await livekit.close();
    expect(await liveKitOf(dir)).toEqual([]);
  });
});
