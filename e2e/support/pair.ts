import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { connectPeers, launchChromium, openPeer, peerContext } from '@rtcscope/lab';
import { startProduct } from './product.js';

/**
 * A product and a call of two Chromium pages, alice and bob, connected peer to peer and monitored by the
 * SDK: what a new user's first page of two connections is. `close` ends the browser and the product.
 */
export async function startPair(name: string, callId: string) {
  const { server, keys } = await startProduct(name, { CALL_IDLE_TIMEOUT_S: '60' });
  const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, `home-${name}`));
  const api = async <T>(path: string) =>
    (await (await fetch(`${server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${keys.apiKey}` } })).json()) as T;
  const close = async () => {
    await browser.close();
    await server.stop();
  };
  try {
    const page = async (participantId: string): Promise<Page> => {
      const p = await (await peerContext(browser)).newPage();
      await openPeer(p, { server: server.url, ingestKey: keys.ingestKey, callId, participantId });
      return p;
    };
    const alice = await page('alice');
    const bob = await page('bob');
    await connectPeers(alice, bob);
    return { server, keys, api, alice, bob, close };
  } catch (err) {
    await close();
    throw err;
  }
}
