import { describe, expect, it } from 'vitest';
import { PeerWatcher } from './peer.js';

/** The parts of an RTCPeerConnection the watcher uses, closed by its page. */
const closedPeer = () =>
  ({ connectionState: 'closed', addEventListener() {}, removeEventListener() {}, getSenders: () => [], getStats: () => Promise.reject(new Error('closed')) }) as unknown as RTCPeerConnection;

describe('PeerWatcher', () => {
  it('says once that its page closed the connection, which fires no state change, and samples it no more', async () => {
    const events: [string, string | undefined][] = [];
    const watcher = new PeerWatcher(closedPeer(), 'pc1', (type, detail) => events.push([type, detail]));
    expect(await watcher.sample()).toBeNull();
    expect(await watcher.sample()).toBeNull();
    expect(events).toEqual([['connection-state', 'closed']]);
  });
});
