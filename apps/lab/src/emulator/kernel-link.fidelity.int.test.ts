import { mean } from '@rtcscope/metrics';
import { createSocket } from 'node:dgram';
import type { LinkState } from '@rtcscope/scenario';
import { afterEach, describe, expect, it } from 'vitest';
import { KernelLink } from './kernel-link.js';
import { probeHost } from './probe.js';
import { TcpFlow } from './tcp-flow.js';

/**
 * TCP through the kernel-rate backend: a bulk flow is held to the cap by the kernel queue (±10 %), and
 * shares it with UDP crossing the same link. (Delay and loss are applied in user space to UDP only:
 * without netem the kernel cannot add them to TCP; the UDP fidelity tests cover them.) Fidelity tests
 * run in their own Vitest project, after all others, so no other test competes for the CPU while flows
 * are measured.
 */
const caps = await probeHost();
const open: LinkState = { rateKbps: null, delayMs: 0, jitterMs: 0, loss: { model: 'random', pct: 0 }, queueMs: null };
const links: KernelLink[] = [];
const flows: TcpFlow[] = [];
afterEach(async () => {
  for (const f of flows.splice(0)) f.stop();
  await Promise.all(links.splice(0).map((l) => l.close()));
});

/** A kernel link in `state` with a bulk TCP flow through it; both are closed after the test. */
async function flowThrough(state: LinkState): Promise<{ link: KernelLink; flow: TcpFlow }> {
  const link = await KernelLink.open(state);
  links.push(link);
  const flow = await TcpFlow.start(link.namespace);
  flows.push(flow);
  return { link, flow };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!(caps.netns && caps.tbf))('kernel-rate backend, measured with TCP', { timeout: 30_000 }, () => {
  it('holds a TCP bulk flow to the cap (±10 %)', async () => {
    const { flow } = await flowThrough({ ...open, rateKbps: 2000, queueMs: 200 });
    await sleep(14_500);
    // Eleven seconds after slow start and the first loss: a loss holds back what follows it until the
    // resend arrives, so single seconds swing by a quarter and the mean over a window is the goodput
    // only to within the swings at its ends. Over six seconds one dip at an end cost 4–5 %, and a CI run
    // on a busy host measured 10.7 % off.
    const steady = flow
      .rates()
      .slice(3)
      .map((r) => r.kbps);
    // Goodput: TCP/IP headers take ~3.5 % of each 1500-byte packet.
    expect(Math.abs(mean(steady)! / 0.965 - 2000) / 2000).toBeLessThan(0.1);
  });

  it('follows a rate change while the flow runs', async () => {
    const { link, flow } = await flowThrough({ ...open, rateKbps: 3000, queueMs: 100 });
    await sleep(6000);
    link.set({ ...open, rateKbps: 1000, queueMs: 100 });
    // Seconds are counted from when `tc` returned: on a loaded host the command itself can take a while.
    await link.namespace.settled();
    const appliedAt = Date.now();
    await sleep(10_000);
    // Whole-second rates are noisy (the far end's byte counts arrive in bursts); their mean over several
    // seconds is the bytes over that window (over four, a loaded CI host once read 13.6 % off). Skipped: slow start, and the two seconds after the change,
    // which drain the old queue and recover from the burst of losses the drop causes. Bytes held back
    // by that recovery arrive together once the resends do; a window starting one second after the
    // change caught such a release without the dip before it (753 then 1,466 kbit/s) and read 25 % high.
    const rates = flow.rates();
    const before = rates.filter((r) => r.t - 1000 >= flow.startedAt + 1000 && r.t <= appliedAt).map((r) => r.kbps);
    const after = rates.filter((r) => r.t - 1000 >= appliedAt + 2000).map((r) => r.kbps);
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(after.length).toBeGreaterThanOrEqual(2);
    expect(Math.abs(mean(before)! / 0.965 - 3000) / 3000).toBeLessThan(0.1);
    expect(Math.abs(mean(after)! / 0.965 - 1000) / 1000).toBeLessThan(0.1);
  });

  it('makes TCP and UDP on one link share its rate', async () => {
    const { link, flow } = await flowThrough({ ...open, rateKbps: 2000, queueMs: 200 });
    const receiver = createSocket('udp4');
    await new Promise<void>((resolve) => receiver.bind(0, '127.0.0.1', resolve));
    let udpBytes = 0;
    receiver.on('message', (m) => (udpBytes += m.length));
    // 1000 kbit/s of UDP into the same link, 1200-byte packets every 9.6 ms.
    const deliver = (p: Buffer) => receiver.send(p, receiver.address().port, '127.0.0.1');
    const sender = setInterval(() => link.send(Buffer.alloc(1200), deliver), 9.6);
    await sleep(6000);
    clearInterval(sender);
    await sleep(300);
    receiver.close();
    const udpKbps = (udpBytes * 8) / 1000 / 6;
    const tcpKbps =
      mean(
        flow
          .rates()
          .slice(1, 6)
          .map((r) => r.kbps),
      )! / 0.965;
    expect(udpKbps + tcpKbps).toBeLessThan(2000 * 1.1);
    expect(udpKbps + tcpKbps).toBeGreaterThan(2000 * 0.85);
    expect(udpKbps).toBeGreaterThan(150);
    expect(tcpKbps).toBeGreaterThan(150);
  });
});
