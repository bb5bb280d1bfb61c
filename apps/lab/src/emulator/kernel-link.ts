import type { Socket } from 'node:dgram';
import type { LinkState } from '@rtcscope/scenario';
import { DEFAULT_QUEUE_MS, type Deliver, EmulatedLink, type Link } from './link.js';
import { LinkNamespace } from './netns.js';
import { bindUdp } from './udp-relay.js';

/**
 * One direction of a link whose rate and queue are the Linux kernel's (tbf on a veth into a network
 * namespace), for hosts without netem: loss, delay and jitter are applied in user space first, then
 * packets cross the real kernel queue, where TCP flows sent to `tcpTarget` compete with them.
 * Each datagram carries a 2-byte route tag there and back, so one link serves many relays.
 */
export class KernelLink implements Link {
  private readonly routes = new Map<Deliver, number>();
  private readonly byTag: Deliver[] = [];
  private closed = false;
  private rateKbps: number | null = null;
  private queueMs: number | null = null;

  private constructor(
    private readonly before: EmulatedLink,
    readonly namespace: LinkNamespace,
    private readonly socket: Socket,
  ) {
    socket.on('message', (msg) => {
      if (this.closed || msg.length < 2) return;
      this.byTag[msg.readUInt16BE(0)]?.(msg.subarray(2));
    });
  }

  static async open(state: LinkState): Promise<KernelLink> {
    let socket: Socket | null = null;
    const namespace = await LinkNamespace.create(async (rootAddress) => {
      socket = await bindUdp(rootAddress);
      return socket.address().port;
    });
    const link = new KernelLink(new EmulatedLink({ ...state, rateKbps: null }), namespace, socket!);
    link.set(state);
    await namespace.settled();
    return link;
  }

  get conditions(): LinkState {
    return { ...this.before.conditions, rateKbps: this.rateKbps, queueMs: this.queueMs };
  }

  set(state: LinkState): void {
    this.before.set({ ...state, rateKbps: null });
    if (state.rateKbps !== this.rateKbps || state.queueMs !== this.queueMs)
      this.namespace.setRate(state.rateKbps, state.queueMs ?? DEFAULT_QUEUE_MS);
    this.rateKbps = state.rateKbps;
    this.queueMs = state.queueMs;
  }

  send(packet: Buffer, deliver: Deliver): void {
    let tag = this.routes.get(deliver);
    if (tag === undefined) {
      tag = this.byTag.push(deliver) - 1;
      this.routes.set(deliver, tag);
    }
    const header = Buffer.allocUnsafe(2);
    header.writeUInt16BE(tag, 0);
    this.before.send(
      packet,
      (p) => !this.closed && this.socket.send([header, p], this.namespace.udpTarget.port, this.namespace.udpTarget.address),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    this.socket.close();
    await this.namespace.close();
  }
}
