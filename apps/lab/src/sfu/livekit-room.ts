import { AccessToken } from 'livekit-server-sdk';
import { joinLiveKit, untilSubscribed } from '../browser/livekit.js';
import { NatRelay } from '../emulator/nat-relay.js';
import type { LiveKitServer } from './livekit-server.js';
import type { RoomMember, RoomOptions } from './videoroom.js';

/** How long a participant's token lets it in: longer than any lab run. */
const TOKEN_TTL = '24h';

export interface LiveKitRoomOptions extends RoomOptions {
  /** The room's name: the call's id, which the SDK's adapter makes the call id. */
  name: string;
  fps: number;
  audioOnly?: boolean;
}

/**
 * A call through LiveKit, as a LiveKit app makes one: each member (participant k, identity pk) joins
 * the room named for the call with a token of the run's keys, publishes (a viewer nothing), and subscribes to everyone;
 * livekit-client makes its connections (a publishing and a subscribing one). Each member's media crosses
 * a relay over that member's path, so impairing one member's links touches no one else's.
 */
export class LiveKitRoom {
  private readonly relays: NatRelay[] = [];

  private constructor() {}

  static async connect(server: LiveKitServer, members: readonly RoomMember[], o: LiveKitRoomOptions): Promise<LiveKitRoom> {
    const room = new LiveKitRoom();
    try {
      for (const [k, m] of members.entries()) {
        const relay = await NatRelay.open(server.media, m.path.aToB, m.path.bToA);
        room.relays.push(relay);
        await joinLiveKit(m.page, {
          url: server.url,
          token: await token(server, o.name, `p${k}`),
          relay: relay.inside,
          codec: o.codec,
          fps: o.fps,
          ...(o.maxBitrateKbps ? { maxBitrateKbps: o.maxBitrateKbps } : {}),
          ...(o.audioOnly ? { audioOnly: true } : {}),
          ...(m.watches ? { watches: true } : {}),
        });
      }
      const each = o.audioOnly ? 1 : 2;
      const publishers = members.filter((m) => !m.watches).length;
      for (const m of members) await untilSubscribed(m.page, each * (publishers - (m.watches ? 0 : 1)));
      return room;
    } catch (err) {
      room.close();
      throw new Error(`${err instanceof Error ? err.message : String(err)}; LiveKit's log ends:\n${server.logTail()}`, { cause: err });
    }
  }

  /** The relays close (the members' pages leave the room when they hang up). */
  close(): void {
    for (const r of this.relays) r.close();
  }
}

function token(server: LiveKitServer, room: string, identity: string): Promise<string> {
  const t = new AccessToken(server.apiKey, server.apiSecret, { identity, name: identity, ttl: TOKEN_TTL });
  t.addGrant({ roomJoin: true, room, canPublish: true, canSubscribe: true });
  return t.toJwt();
}
