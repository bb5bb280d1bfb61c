import type { Socket } from 'node:dgram';
import { chain, type Link } from './link.js';
import { bindUdp, type Endpoint } from './udp-relay.js';

/** Flows one relay carries at most: a connection checks from each of its candidates (a dozen on a machine of many interfaces), and restarts. */
const MAX_FLOWS = 64;

interface Flow {
  toServer: (packet: Buffer) => void;
}

/**
 * Carries a participant's connections to a server whose address is known and which answers whoever
 * reaches it (an ICE-lite SFU), through the participant's emulated links, as a NAT in front of the
 * participant would: the participant is told the server is at `inside`; each address it sends from
 * there gets an outside socket of its own, from which its packets cross `toServer` to the server, and
 * what the server sends back to that socket crosses `fromServer` to the address it came for. Unlike
 * `PairRelay`, it needs neither side's candidates: the server learns each outside address from the
 * checks that reach it. Packets from anyone but the server on an outside socket are ignored.
 */
export class NatRelay {
  private readonly flows = new Map<string, Flow | Buffer[]>();
  /** Packets still inside an emulated link when the relay closes are dropped, as on a cut cable. */
  private closed = false;
  private readonly outside: Socket[] = [];

  private constructor(
    private readonly sock: Socket,
    /** The port the participant is told the server is at, on 127.0.0.1 or the machine's own address (`inside`). */
    readonly port: number,
    private readonly server: Endpoint,
    private readonly toServer: readonly Link[],
    private readonly fromServer: readonly Link[],
  ) {}

  static async open(server: Endpoint, toServer: readonly Link[], fromServer: readonly Link[]): Promise<NatRelay> {
    // Inside on every address: the lab's Chromium pages take only candidates on 127.0.0.1 (chromium.ts'
    // LOOPBACK_ONLY), Firefox none there; each is answered from the address it sent to.
    const sock = await bindUdp('0.0.0.0');
    const relay = new NatRelay(sock, sock.address().port, server, toServer, fromServer);
    sock.on('message', (msg, from) => relay.fromInside(msg, from));
    return relay;
  }

  /** Where the participant is told the server is: on loopback and on the server's own address. */
  get inside(): Endpoint[] {
    return [
      { address: '127.0.0.1', port: this.port },
      { address: this.server.address, port: this.port },
    ];
  }

  private fromInside(packet: Buffer, from: Endpoint): void {
    if (this.closed) return;
    const key = `${from.address}:${from.port}`;
    const flow = this.flows.get(key);
    if (Array.isArray(flow)) flow.push(packet);
    else if (flow) flow.toServer(packet);
    else if (this.flows.size < MAX_FLOWS) void this.open(key, { address: from.address, port: from.port }, packet);
  }

  /** A flow for a new address inside: its outside socket, and the packets that came while it was bound. */
  private async open(key: string, member: Endpoint, first: Buffer): Promise<void> {
    const waiting = [first];
    this.flows.set(key, waiting);
    const out = await bindUdp(this.server.address);
    if (this.closed) return void out.close();
    this.outside.push(out);
    const server = this.server;
    const toMember = chain(this.fromServer, (p) => !this.closed && this.sock.send(p, member.port, member.address));
    const toServer = chain(this.toServer, (p) => !this.closed && out.send(p, server.port, server.address));
    out.on('message', (msg, from) => from.port === server.port && from.address === server.address && toMember(msg));
    this.flows.set(key, { toServer });
    for (const p of waiting) toServer(p);
  }

  close(): void {
    this.closed = true;
    this.sock.close();
    for (const s of this.outside) s.close();
  }
}
