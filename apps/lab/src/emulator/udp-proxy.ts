import type { Socket } from 'node:dgram';
import { chain, type Link } from './link.js';
import { bindUdp, type Endpoint } from './udp-relay.js';

/**
 * Stands on the path between clients and one UDP server (a TURN server), as a user's access link does:
 * what any client sends crosses the `up` links, what the server answers crosses `down` (the links are
 * shared, as one user's uplink is by all their connections). Each client gets a socket of its own toward
 * the server, so the server tells clients apart by address as it would without the proxy.
 */
export class UdpProxy {
  private readonly clients = new Map<string, Promise<Socket>>();
  private closed = false;

  private constructor(
    private readonly front: Socket,
    private readonly target: Endpoint,
    private readonly up: readonly Link[],
    private readonly down: readonly Link[],
    private readonly host: string,
  ) {}

  static async open(target: Endpoint, up: readonly Link[], down: readonly Link[], host = '127.0.0.1'): Promise<UdpProxy> {
    const proxy = new UdpProxy(await bindUdp(host), target, up, down, host);
    proxy.front.on('message', (packet, from) => void proxy.forward(packet, { address: from.address, port: from.port }));
    return proxy;
  }

  /** Where clients send: the server's address as they are told it. */
  get address(): Endpoint {
    const a = this.front.address();
    return { address: a.address, port: a.port };
  }

  close(): void {
    this.closed = true;
    this.front.close();
    for (const socket of this.clients.values()) void socket.then((s) => s.close());
  }

  private async forward(packet: Buffer, client: Endpoint): Promise<void> {
    const key = `${client.address}:${client.port}`;
    let upstream = this.clients.get(key);
    if (!upstream) {
      upstream = this.connect(client);
      this.clients.set(key, upstream);
    }
    const socket = await upstream;
    // Packets still inside an emulated link when the proxy closes are dropped, as on a cut cable.
    chain(this.up, (p) => !this.closed && socket.send(p, this.target.port, this.target.address))(packet);
  }

  private async connect(client: Endpoint): Promise<Socket> {
    const socket = await bindUdp(this.host);
    const toClient = chain(this.down, (p) => !this.closed && this.front.send(p, client.port, client.address));
    socket.on('message', (packet, from) => from.port === this.target.port && from.address === this.target.address && toClient(packet));
    return socket;
  }
}
