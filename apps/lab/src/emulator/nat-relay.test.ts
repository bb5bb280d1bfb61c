import { createSocket, type Socket } from 'node:dgram';
import type { LinkState } from '@rtcscope/scenario';
import { afterEach, describe, expect, it } from 'vitest';
import { EmulatedLink } from './link.js';
import { NatRelay } from './nat-relay.js';

const open: LinkState = { rateKbps: null, delayMs: 0, jitterMs: 0, loss: { model: 'random', pct: 0 }, queueMs: null };
const sockets: Socket[] = [];
const relays: NatRelay[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
  for (const r of relays.splice(0)) r.close();
});

async function socket(): Promise<Socket> {
  const s = createSocket('udp4');
  sockets.push(s);
  await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve));
  return s;
}

const next = (s: Socket) =>
  new Promise<{ msg: string; port: number }>((resolve) => s.once('message', (m, r) => resolve({ msg: String(m), port: r.port })));

describe('NatRelay', () => {
  it("gives each address inside its own outside one, carries both ways over the participant's links, and ignores anyone but the server", async () => {
    const server = await socket();
    const at = { address: '127.0.0.1', port: server.address().port };
    // The server answers whoever reached it, as an ICE-lite SFU does.
    const sources: number[] = [];
    server.on('message', (msg, from) => {
      sources.push(from.port);
      server.send(`re:${String(msg)}`, from.port, from.address);
    });
    const up = new EmulatedLink(open);
    const down = new EmulatedLink(open);
    const relay = await NatRelay.open(at, [up], [down]);
    relays.push(relay);
    const [a, b, stranger] = [await socket(), await socket(), await socket()];

    const toA = next(a);
    a.send('one', relay.port, '127.0.0.1');
    expect(await toA).toEqual({ msg: 're:one', port: relay.port });
    const toB = next(b);
    b.send('two', relay.port, '127.0.0.1');
    expect(await toB).toEqual({ msg: 're:two', port: relay.port });
    const again = next(a);
    a.send('three', relay.port, '127.0.0.1');
    expect(await again).toEqual({ msg: 're:three', port: relay.port });
    // a's two packets left from one outside address, b's from another.
    expect(new Set(sources).size).toBe(2);
    expect(sources[0]).toBe(sources[2]);

    // Nothing reaches a from an outside socket but what the server sent: a stranger's packet to it is
    // dropped, and the next thing a hears is the server's answer to its own.
    stranger.send('noise', sources[0]!, '127.0.0.1');
    const last = next(a);
    a.send('four', relay.port, '127.0.0.1');
    expect(await last).toEqual({ msg: 're:four', port: relay.port });
  });
});
