import { randomInt } from 'node:crypto';
import type { JanusSubscribedStream } from '@rtcscope/sdk';
import {
  acceptAnswer,
  addConnection,
  answerOffer,
  capVideo,
  createOffer,
  nameJanusTracks,
  type PeerPage,
  untilConnected,
} from '../browser/peer.js';
import { hostCandidate, withOnlyCandidate } from '../browser/sdp.js';
import { PairRelay } from '../emulator/udp-relay.js';
import type { Path } from '../runner/links.js';
import { type JanusHandle, JanusSession } from './janus-api.js';
import type { JanusServer } from './janus-server.js';

export interface RoomMember {
  page: PeerPage;
  /** The member's path to the SFU: its own links and the SFU's. */
  path: Path;
  /** The member only watches and listens: it publishes nothing (Janus: it joins as a subscriber alone). */
  watches?: boolean;
}

export interface RoomOptions {
  codec: string;
  maxBitrateKbps?: number;
}

/** The connections' labels in each page, as the monitor reports them. */
export const SFU_LABELS = { publish: 'publish', subscribe: 'subscribe' } as const;

const VIDEOROOM = 'janus.plugin.videoroom';
/** How long Janus may take to count a publisher whose browser says its connection is up. */
const PUBLISHING_WITHIN_MS = 10_000;

/**
 * A call through Janus's VideoRoom, as its own clients run one: each member joins a room as a publisher
 * (participant k is feed k + 1, named pk) with a connection that sends its media, then subscribes to
 * every other publisher's feed on one more connection that only receives (Janus's multistream
 * subscription); a member who only watches joins as a subscriber alone, as a webinar's audience does.
 * Every connection's media crosses a relay over that member's path, so impairing one member's links
 * touches no one else's.
 */
export class VideoRoom {
  private readonly sessions: JanusSession[] = [];
  private readonly relays: PairRelay[] = [];
  private readonly id = randomInt(1, 2 ** 40);

  private constructor(private readonly janus: JanusServer) {}

  static async connect(janus: JanusServer, members: readonly RoomMember[], o: RoomOptions): Promise<VideoRoom> {
    const room = new VideoRoom(janus);
    try {
      for (let k = 0; k < members.length; k++) room.sessions.push(await JanusSession.create(janus.url));
      const publishers = await Promise.all(room.sessions.map((s) => s.attach(VIDEOROOM)));
      await publishers[0]!.request({
        request: 'create',
        room: room.id,
        publishers: members.length,
        videocodec: o.codec.toLowerCase(),
        audiocodec: 'opus',
        notify_joining: true,
      });
      const feeds = members.flatMap((m, k) => (m.watches ? [] : [k]));
      for (const k of feeds) await room.publish(publishers[k]!, k, members[k]!);
      // Janus offers a feed to subscribers only once its publisher's connection is up — on its side: a
      // browser says it is connected before Janus has handled the same, and a subscription in between is
      // refused ("No such feed").
      for (const k of feeds) await untilConnected(members[k]!.page, SFU_LABELS.publish);
      await room.untilPublishing(publishers[0]!, feeds.length);
      for (const [k, m] of members.entries()) await room.subscribe(k, m, feeds);
      for (const [k, m] of members.entries()) {
        await untilConnected(m.page, SFU_LABELS.subscribe);
        if (o.maxBitrateKbps && feeds.includes(k)) await capVideo(m.page, SFU_LABELS.publish, o.maxBitrateKbps);
      }
      return room;
    } catch (err) {
      await room.close();
      throw err;
    }
  }

  /** Member k joins as publisher k + 1, sending its media on a connection of its own. */
  private async publish(handle: JanusHandle, k: number, m: RoomMember): Promise<void> {
    const relay = await this.relay(m.path);
    await addConnection(m.page, SFU_LABELS.publish);
    const offer = await createOffer(m.page, SFU_LABELS.publish);
    const joined = await handle.request(
      { request: 'joinandconfigure', room: this.id, ptype: 'publisher', id: k + 1, display: `p${k}`, audio: true, video: true },
      { type: 'offer', sdp: withOnlyCandidate(offer, relay.forA) },
    );
    await handle.candidatesDone();
    const answer = sdpOf(joined.jsep, 'answer');
    this.connectRelay(relay, offer, answer);
    await acceptAnswer(m.page, SFU_LABELS.publish, withOnlyCandidate(answer, relay.forB));
    await nameJanusTracks(m.page, SFU_LABELS.publish, { room: this.id, feed: k + 1 });
  }

  /** Waits until Janus lists `count` members of the room as publishing (their media connection up on its side). */
  private async untilPublishing(handle: JanusHandle, count: number): Promise<void> {
    const deadline = Date.now() + PUBLISHING_WITHIN_MS;
    for (;;) {
      const { data } = await handle.request({ request: 'listparticipants', room: this.id });
      const publishing = ((data.participants ?? []) as { publisher?: boolean }[]).filter((p) => p.publisher).length;
      if (publishing >= count) return;
      if (Date.now() > deadline) {
        throw new Error(
          `Janus lists ${publishing} of ${count} members as publishing ${PUBLISHING_WITHIN_MS / 1000} s after their connections came up`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Member k subscribes to every other publisher's feed (members `publishing`) on one connection that only receives. */
  private async subscribe(k: number, m: RoomMember, publishing: readonly number[]): Promise<void> {
    const handle = await this.sessions[k]!.attach(VIDEOROOM);
    const feeds = publishing.flatMap((j) => (j === k ? [] : [{ feed: j + 1 }]));
    const attached = await handle.request({ request: 'join', room: this.id, ptype: 'subscriber', streams: feeds });
    const relay = await this.relay(m.path);
    const offer = sdpOf(attached.jsep, 'offer');
    await addConnection(m.page, SFU_LABELS.subscribe, { send: false });
    const answer = await answerOffer(m.page, SFU_LABELS.subscribe, withOnlyCandidate(offer, relay.forB));
    this.connectRelay(relay, answer, offer);
    await handle.request({ request: 'start' }, { type: 'answer', sdp: withOnlyCandidate(answer, relay.forA) });
    await handle.candidatesDone();
    const named = await nameJanusTracks(m.page, SFU_LABELS.subscribe, { room: this.id, streams: streamsOf(attached.data) });
    if (named === 0) throw new Error(`Janus's subscription for p${k} names no stream the connection carries`);
  }

  /** Everyone leaves (Janus closes its side of their connections), then the relays close. */
  async close(): Promise<void> {
    await Promise.all(this.sessions.map((s) => s.destroy()));
    for (const r of this.relays) r.close();
  }

  /** A relay over the member's path that faces Janus on its own address. */
  private async relay(path: Path): Promise<PairRelay> {
    const relay = await PairRelay.open(path.aToB, path.bToA, this.janus.address);
    this.relays.push(relay);
    return relay;
  }

  /** Points the relay at the member's and Janus's own candidates (each side is told the relay's). */
  private connectRelay(relay: PairRelay, memberSdp: string, janusSdp: string): void {
    const member = hostCandidate(memberSdp);
    const janus = hostCandidate(janusSdp);
    if (!member) throw new Error('a participant offered no UDP host candidate on this machine');
    if (!janus) throw new Error(`Janus gave no UDP host candidate on ${this.janus.address}`);
    relay.connect(member, janus);
  }
}

/** The `streams` of a VideoRoom event: a publisher's own, or what a subscription carries and from whom. */
function streamsOf(data: Record<string, unknown>): JanusSubscribedStream[] {
  const streams = data.streams;
  if (!Array.isArray(streams)) throw new Error('Janus named no streams');
  return streams as JanusSubscribedStream[];
}

function sdpOf(jsep: { type: string; sdp: string } | undefined, type: 'offer' | 'answer'): string {
  if (jsep?.type !== type) throw new Error(`Janus sent no ${type}`);
  return jsep.sdp;
}
