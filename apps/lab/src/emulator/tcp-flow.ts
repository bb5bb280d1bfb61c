import { connect, type Socket } from 'node:net';
import type { LinkNamespace } from './netns.js';

export interface RatePoint {
  /** Epoch ms at the end of the second. */
  t: number;
  kbps: number;
}

const CHUNK = Buffer.alloc(64 * 1024);

/**
 * A TCP bulk flow (what iperf3 does) from the root namespace through a kernel link's queue to its
 * namespace, sending as fast as the kernel's congestion control allows. Goodput is what the far end
 * counted, turned into one rate per second.
 */
export class TcpFlow {
  private readonly received: { at: number; bytes: number }[] = [];
  private stopped = false;

  /** Epoch ms when the connection was up. */
  readonly startedAt = Date.now();

  private constructor(private readonly socket: Socket) {}

  static async start(link: LinkNamespace): Promise<TcpFlow> {
    const socket = connect({ host: link.tcpTarget.address, port: link.tcpTarget.port, localAddress: link.rootAddress });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const flow = new TcpFlow(socket);
    link.onTcpBytes((port, bytes, at) => port === socket.localPort && flow.received.push({ at, bytes }));
    socket.on('error', () => {});
    const pump = () => {
      while (!flow.stopped && socket.write(CHUNK));
    };
    socket.on('drain', pump);
    pump();
    return flow;
  }

  /** Goodput per whole second since the flow started, interpolating the far end's running byte counts. */
  rates(): RatePoint[] {
    const since = this.startedAt;
    const points = [{ at: since, bytes: 0 }, ...this.received];
    const out: RatePoint[] = [];
    let before = 0;
    for (let second = since + 1000, k = 1; k < points.length;) {
      const p = points[k - 1]!;
      const q = points[k]!;
      if (q.at < second) {
        k++;
        continue;
      }
      const bytesAt = p.bytes + ((q.bytes - p.bytes) * (second - p.at)) / Math.max(1, q.at - p.at);
      out.push({ t: second, kbps: ((bytesAt - before) * 8) / 1000 });
      before = bytesAt;
      second += 1000;
    }
    return out;
  }

  stop(): void {
    this.stopped = true;
    this.socket.destroy();
  }
}
