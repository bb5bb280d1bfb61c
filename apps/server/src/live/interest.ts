import type { LiveClientEvents, LiveServerEvents } from '@rtcscope/protocol';
import type { Namespace } from 'socket.io';

/** What nodes tell each other of `/live` rooms, through the adapter (socket.io server-side events). */
export interface LiveNodeEvents {
  /** These rooms are watched on the sending node; answered once heard. */
  watching: (rooms: string[], ack: (heard: boolean) => void) => void;
  /** A node that starts asks the others what they watch. */
  'who-watches': () => void;
}

export type LiveNamespace = Namespace<LiveClientEvents, LiveServerEvents, LiveNodeEvents>;

/** How often a node tells the others which rooms its dashboards watch, and how long that holds. */
export const ANNOUNCE_EVERY_MS = 20_000;
const HOLDS_FOR_MS = 3 * ANNOUNCE_EVERY_MS;

/**
 * Which live rooms somebody watches, on this node or on another one. Ingest publishes a batch only to
 * a watched room: with several nodes, every broadcast costs a NOTIFY through PostgreSQL, and almost
 * no call of thousands has a dashboard open on it. Nodes tell each other what their dashboards watch
 * when a dashboard subscribes (before the subscription is acknowledged, so no point is missed after
 * it) and again every 20 s; a node's word holds for a minute, so a crashed node's rooms fade out.
 */
export class RoomInterest {
  private readonly remote = new Map<string, number>();
  private readonly timer: ReturnType<typeof setInterval> | null = null;
  private readonly asking: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly ns: LiveNamespace,
    private readonly clustered: boolean,
  ) {
    if (!clustered) return;
    ns.on('watching', (rooms: unknown, ack?: unknown) => {
      if (Array.isArray(rooms)) this.heard(rooms);
      if (typeof ack === 'function') (ack as (ok: boolean) => void)(true);
    });
    // A node that starts asks the others for what they watch instead of waiting for their next round
    // (a moment after start, once the adapter listens for the answers).
    ns.on('who-watches', () => this.announce());
    this.asking = setTimeout(() => ns.serverSideEmit('who-watches'), 1000);
    this.timer = setInterval(() => this.announce(), ANNOUNCE_EVERY_MS);
  }

  watched(room: string): boolean {
    if ((this.ns.adapter.rooms.get(room)?.size ?? 0) > 0) return true;
    const until = this.remote.get(room);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.remote.delete(room);
    return false;
  }

  /** Resolves once the other nodes know (or could not be asked: a dashboard is never kept waiting on that). */
  async joined(room: string): Promise<void> {
    if (!this.clustered) return;
    await this.ns.serverSideEmitWithAck('watching', [room]).catch(() => {});
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.asking) clearTimeout(this.asking);
  }

  private heard(rooms: unknown[]): void {
    const until = Date.now() + HOLDS_FOR_MS;
    for (const room of rooms) if (typeof room === 'string') this.remote.set(room, until);
  }

  private announce(): void {
    const rooms = [...this.ns.adapter.rooms].filter(([name, members]) => name.startsWith('p:') && members.size > 0).map(([name]) => name);
    // The round asks for no answers; socket.io's types hold an event with an ack to always send one.
    if (rooms.length)
      (this.ns as unknown as Namespace<object, object, { watching: (rooms: string[]) => void }>).serverSideEmit('watching', rooms);
  }
}
