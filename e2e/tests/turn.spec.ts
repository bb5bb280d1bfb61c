import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { launchChromium } from '@rtcscope/lab';
import type { IceServer, IceServersAnswer } from '@rtcscope/protocol';
import { freePort, ingestSocket, localTurnSecret } from '@rtcscope/server/testing';
import { localTurnKey, startProduct } from '../support/product.js';

test("the start command's coturn: the credentials the server hands an SDK open relays over UDP, TCP and TLS; signed with another secret, coturn refuses them", async () => {
  const turnPort = await freePort();
  const { server, keys, env } = await startProduct('turn', { LOCAL_TURN: 'on', LOCAL_TURN_PORT: String(turnPort) });
  // The browser trusts the certificate the start made for coturn's TLS, as a person would add it.
  const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home-turn'), {
    trustedKeys: [localTurnKey(env.DATA_DIR)],
  });
  try {
    const local = [`turn:127.0.0.1:${turnPort}?transport=udp`, `turn:127.0.0.1:${turnPort}?transport=tcp`];
    const urls = [...local, `turns:127.0.0.1:${turnPort}?transport=tcp`];
    expect(server.output()).toContain(
      `TURN:       coturn running beside the server at ${local.join(', ')} (LOCAL_TURN=on); TLS on the same port`,
    );
    const put = (secret: string) =>
      fetch(`${server.url}/api/v1/project/turn`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${keys.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ urls, secret, ttlS: 300 }),
      });
    const handedOut = async (): Promise<IceServer[]> => {
      const socket = await ingestSocket(server.url, {
        v: 1,
        key: keys.ingestKey,
        callId: 'precall-turn',
        participantId: 'p',
        session: 'turn-1',
      });
      try {
        const answer = (await socket.timeout(10_000).emitWithAck('iceServers')) as IceServersAnswer;
        if (!answer.ok) throw new Error(answer.error);
        return answer.iceServers;
      } finally {
        socket.disconnect();
      }
    };
    const page = await browser.newPage();
    // Only relayed candidates (their addresses): one exists only if coturn took the credentials and allocated a relay.
    const relays = (iceServers: IceServer[]) =>
      page.evaluate(async (servers) => {
        const pc = new RTCPeerConnection({ iceServers: servers, iceTransportPolicy: 'relay' });
        const found: (string | null)[] = [];
        pc.onicecandidate = (e) => {
          if (e.candidate?.type === 'relay') found.push(e.candidate.address);
        };
        const complete = new Promise<void>((resolve) => {
          pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && resolve();
        });
        pc.createDataChannel('probe');
        await pc.setLocalDescription(await pc.createOffer());
        await complete;
        pc.close();
        return found;
      }, iceServers);

    // The start gave the local project its coturn, with the secret it keeps in the data folder; TLS is added as a person would.
    expect(
      (await (await fetch(`${server.url}/api/v1/project/turn`, { headers: { authorization: `Bearer ${keys.apiKey}` } })).json()) as unknown,
    ).toMatchObject({
      turn: { urls: local },
    });
    expect((await put(localTurnSecret(env.DATA_DIR)!)).status).toBe(200);
    // Each way to the TURN server on its own (a candidate does not say which way it was gathered): over UDP, TCP and TLS.
    const [granted] = await handedOut();
    for (const url of urls) expect(await relays([{ ...granted!, urls: [url] }]), url).toEqual(['127.0.0.1']);

    // The same servers with another secret: the credentials handed out no longer open anything.
    expect((await put('not-the-secret-coturn-has')).status).toBe(200);
    const [refused] = await handedOut();
    for (const url of urls) expect(await relays([{ ...refused!, urls: [url] }]), url).toEqual([]);
  } finally {
    await browser.close();
    await server.stop();
  }
});
