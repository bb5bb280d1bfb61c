import { createSocket, type Socket } from 'node:dgram';
import { chain, type Link } from './link.js';

export interface Endpoint {
  address: string;
  port: number;
}

/**
 * Carries one peer-to-peer UDP path through emulated links, acting like a NAT between two peers on
 * loopback: peer A is told B is at `forB`, peer B is told A is at `forA` (the runner rewrites their ICE
 * candidates). What B sends to `forA` crosses `bToA` and reaches A from `forB`; what A sends to `forB`
 * crosses `aToB` and reaches B from `forA`. Packets from anyone else are ignored.
 */
export class PairRelay {
  private a: Endpoint | null = null;
  private b: Endpoint | null = null;
  /** Packets still inside an emulated link when the relay closes are dropped, as on a cut cable. */
  private closed = false;

  private constructor(
    private readonly sockA: Socket,
    private readonly sockB: Socket,
    readonly forA: Endpoint,
    readonly forB: Endpoint,
  ) {}

  static async open(aToB: readonly Link[], bToA: readonly Link[], host = '127.0.0.1'): Promise<PairRelay> {
    const [sockA, sockB] = await Promise.all([bindUdp(host), bindUdp(host)]);
    const relay = new PairRelay(sockA, sockB, endpoint(sockA), endpoint(sockB));
    const toA = chain(bToA, (p) => relay.a && !relay.closed && sockB.send(p, relay.a.port, relay.a.address));
    const toB = chain(aToB, (p) => relay.b && !relay.closed && sockA.send(p, relay.b.port, relay.b.address));
    sockA.on('message', (msg, from) => relay.b && same(from, relay.b) && toA(msg));
    sockB.on('message', (msg, from) => relay.a && same(from, relay.a) && toB(msg));
    return relay;
  }

  /** The peers' real addresses, from their own candidates. */
  connect(a: Endpoint, b: Endpoint): void {
    this.a = a;
    this.b = b;
  }

  close(): void {
    this.closed = true;
    this.sockA.close();
    this.sockB.close();
  }
}

/** A UDP socket on `host` at a port the system picks. */
export function bindUdp(host: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, host, () => resolve(socket));
  });
}

function endpoint(socket: Socket): Endpoint {
  const a = socket.address();
  return { address: a.address, port: a.port };
}

const same = (x: { address: string; port: number }, y: Endpoint) => x.port === y.port && x.address === y.address;
