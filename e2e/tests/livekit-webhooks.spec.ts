import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { LiveKitServer } from '@rtcscope/lab';
import type { LiveKitSettingsInfo } from '@rtcscope/protocol';
import { RoomServiceClient } from 'livekit-server-sdk';
import pg from 'pg';
import { startProduct } from '../support/product.js';

/** A post LiveKit made, as it made it, and what the route answered. */
interface Posted {
  issuer: string;
  authorization: string;
  body: string;
  status: number;
  answer: string;
}

test("real LiveKits' webhooks, posted to the project's public route as a production LiveKit posts them: one signing with the project's key stored once, again once when its post is replayed, and another LiveKit's refused with nothing stored", async () => {
  const { server, keys } = await startProduct('livekit-webhooks');
  const dir = mkdtempSync(join(tmpdir(), 'rtcscope-e2e-livekit-'));
  const db = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
  await db.connect();
  const livekits: LiveKitServer[] = [];
  // In front of the route, passing each post on as it came and keeping the route's answer: what the
  // route said to LiveKit, which LiveKit does not tell.
  const posted: Posted[] = [];
  const { webhookPath } = (await (
    await fetch(`${server.url}/api/v1/project/livekit`, { headers: { authorization: `Bearer ${keys.apiKey}` } })
  ).json()) as LiveKitSettingsInfo;
  const route = new URL(webhookPath, server.url);
  const post = async (authorization: string, body: string) => {
    const res = await fetch(route, { method: 'POST', headers: { authorization, 'content-type': 'application/webhook+json' }, body });
    return { status: res.status, answer: await res.text() };
  };
  const proxy = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const [authorization, body] = [request.headers.authorization ?? '', Buffer.concat(chunks).toString('utf8')];
      const claims = JSON.parse(Buffer.from(authorization.split('.')[1] ?? '', 'base64url').toString('utf8') || '{}') as { iss?: string };
      void post(authorization, body).then(({ status, answer }) => {
        posted.push({ issuer: claims.iss ?? '', authorization, body, status, answer });
        response.writeHead(status).end(answer);
      });
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  if (typeof address !== 'object' || !address) throw new Error('the proxy has no port');
  try {
    const ours = await LiveKitServer.start(mkdtempSync(join(dir, 'ours-')), new URL(`http://127.0.0.1:${address.port}/`));
    livekits.push(ours);
    const stranger = await LiveKitServer.start(mkdtempSync(join(dir, 'stranger-')), new URL(`http://127.0.0.1:${address.port}/`));
    livekits.push(stranger);
    const set = await fetch(`${server.url}/api/v1/project/livekit`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${keys.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: ours.apiKey, apiSecret: ours.apiSecret }),
    });
    expect(set.status, await set.text()).toBe(200);
    const stored = async (room: string) =>
      (
        await db.query<{ kind: string }>(
          `SELECT kind FROM sfu_event WHERE project_id = $1 AND sfu = 'livekit' AND room = $2 ORDER BY kind`,
          [keys.projectId, room],
        )
      ).rows.map((r) => r.kind);
    // LiveKit dates its events to the second: a room made and removed at once has both at one time.
    const both = ['room-finished', 'room-started'];
    const of = (l: LiveKitServer) => posted.filter((p) => p.issuer === l.apiKey);
    const room = async (l: LiveKitServer, name: string) => {
      const rooms = new RoomServiceClient(l.httpUrl, l.apiKey, l.apiSecret);
      await rooms.createRoom({ name });
      await rooms.deleteRoom(name);
    };

    // Another LiveKit's, signed with a key the project does not hold: refused (LiveKit does not send a
    // refused post again), nothing stored.
    await room(stranger, 'strangers-room');
    await expect.poll(() => of(stranger).map((p) => p.status), { timeout: 30_000 }).toEqual([401, 401]);
    expect(of(stranger)[0]!.answer).toContain("not signed with this project's LiveKit key");
    expect(await stored('strangers-room')).toEqual([]);

    // The project's own: verified and stored.
    await room(ours, 'our-room');
    await expect.poll(() => of(ours).map((p) => p.status), { timeout: 30_000 }).toEqual([200, 200]);
    expect(await stored('our-room')).toEqual(both);
    // Replayed as it was signed: acknowledged, stored no second time.
    const first = of(ours)[0]!;
    const again = await post(first.authorization, first.body);
    expect([again.status, JSON.parse(again.answer)]).toEqual([200, { received: 1, stored: 0 }]);
    // Its body changed under the same signature: refused.
    expect((await post(first.authorization, first.body.replace('our-room', 'their-room'))).status).toBe(401);
    expect(await stored('our-room')).toEqual(both);
    expect(await stored('their-room')).toEqual([]);
  } finally {
    for (const l of livekits) await l.close();
    proxy.close();
    await db.end();
    rmSync(dir, { recursive: true, force: true });
    await server.stop();
  }
});
