import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';

/** What the lab's SFUs (Janus, LiveKit) need of the machine they run on. */

/**
 * The machine's first IPv4 address that is not loopback (Linux delivers to it over loopback all the
 * same): neither SFU gathers a candidate on 127.0.0.1.
 */
export function ownAddress(): string {
  const found = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .find((a) => a.family === 'IPv4' && !a.internal);
  if (!found)
    throw new Error('the SFU needs an IPv4 address besides 127.0.0.1 (an SFU gathers no candidate on loopback), and this machine has none');
  return found.address;
}

/** A TCP port nothing listens on now (the SFUs take fixed ports). */
export function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A UDP port nothing is bound to now on any address. */
export function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createSocket('udp4');
    probe.once('error', reject);
    probe.bind(0, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
