import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';

/** What the lab's SFUs (Janus, LiveKit) need of the machine they run on, and how they are started and stopped. */

/**
 * Starts `binary` through a shell that holds our end of a pipe: when it closes — `stopTied`, or this
 * process dying however it dies — the binary is stopped (SIGTERM, then SIGKILL 5 s on: LiveKit drains
 * its rooms on SIGTERM, and a room whose browsers died with this process lingered), so no run leaves an SFU behind. The shell ends
 * with it; `output`, a file's descriptor, takes what it prints. (A job in the background reads /dev/null unless told otherwise: the pipe waits in descriptor 3.)
 */
export function spawnTied(binary: string, args: readonly string[], output: 'ignore' | number = 'ignore'): ChildProcess {
  return spawn(
    '/bin/sh',
    [
      '-c',
      'exec 3<&0; "$0" "$@" </dev/null 3<&- & child=$!; (cat <&3 >/dev/null; kill $child 2>/dev/null; sleep 5; kill -9 $child 2>/dev/null) & wait $child',
      binary,
      ...args,
    ],
    { stdio: ['pipe', output, output] },
  );
}

export function stopTied(child: ChildProcess): void {
  child.stdin?.end();
}

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
