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

/**
 * Socket buffers of the relay, bytes (the kernel holds them to net.core.rmem_max / wmem_max): room for a
 * burst while this process's event loop is busy elsewhere. With the default 208 kB, a call through an SFU
 * (twelve flows through one process, key frames asked of every publisher at once when a subscriber lost
 * packets) lost packets of every flow at once in the relay itself — loss no link was set to make.
 */
const SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;

/** A UDP socket on `host` at a port the system picks. */
export function bindUdp(host: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createSocket({ type: 'udp4', recvBufferSize: SOCKET_BUFFER_BYTES, sendBufferSize: SOCKET_BUFFER_BYTES });
    socket.once('error', reject);
    socket.bind(0, host, () => resolve(socket));
  });
}

function endpoint(socket: Socket): Endpoint {
  const a = socket.address();
  return { address: a.address, port: a.port };
}

const same = (x: { address: string; port: number }, y: Endpoint) => x.port === y.port && x.address === y.address;
