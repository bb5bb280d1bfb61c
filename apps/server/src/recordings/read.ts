import type { Readable, Writable } from 'node:stream';
import type { Batch } from '@rtcscope/protocol';
import { RecordingEncoder, type StatsSnapshot } from '@rtcscope/sdk/recording';
import { RecordingError } from './errors.js';
import { readRtcstats } from './rtcstats.js';
import { openRecording, type RecordingFormat } from './source.js';
import type { RecordingSink } from './sink.js';
import { readWebrtcInternals } from './webrtc-internals.js';

export interface ReadRecording {
  format: RecordingFormat;
  /** SHA-256 of the file's bytes as uploaded. */
  hash: Buffer;
  bytes: number;
  userAgent: string | null;
  /** Stream and connection samples made. */
  samples: number;
  /** Every connection with samples, as the file names them. */
  connections: string[];
  /** Connections the file itself assigns to participants (an rtcscope export): connection → participant. */
  participants: Map<string, string>;
  /**
   * Connections of one page that send to each other (a loopback test page holds both ends of a call):
   * what one sends, by SSRC, another receives. Empty for a page in a call with others.
   */
  loopback: string[];
}

/** Which participant a connection's samples and events are made for; null: the recording's one participant. */
export type Route = (connection: string) => string | null;

/**
 * Reads a recording as it streams in into the batches its participants' monitors would have sent
 * (one participant, unless `route` splits its connections among several), handing each on as it fills
 * (the next waits for it). `copy`, if given, gets the file's bytes as they came, to read it again.
 */
export async function readRecording(
  input: Readable,
  onBatch: (batch: Batch, participant: string | null) => void | Promise<void>,
  copy?: Writable,
  route: Route = () => null,
): Promise<ReadRecording> {
  const source = await openRecording(input, copy);
  const encoders = new Map<string | null, RecordingEncoder>();
  const ssrcs = new SsrcsSeen();
  const participants = new Map<string, string>();
  let userAgent: string | null = null;
  let first: string | null | undefined;
  const encoderOf = (participant: string | null) => {
    first ??= participant;
    return encoders.get(participant) ?? encoders.set(participant, new RecordingEncoder()).get(participant)!;
  };
  const handOn = async (participant: string | null) => {
    for (const batch of encoderOf(participant).ready()) await onBatch(batch, participant);
  };
  const sink: RecordingSink = {
    userAgent: (ua) => void (userAgent ??= ua),
    participant: (connection, participant) => void participants.set(connection, participant),
    snapshot: (connection, ts, snapshot) => {
      ssrcs.add(connection, snapshot);
      const participant = route(connection);
      encoderOf(participant).snapshot(connection, ts, snapshot);
      return handOn(participant);
    },
    event: (connection, ts, type, detail) => {
      // An event of no connection is the page's: its first participant's.
      const participant = connection === null ? (first ?? null) : route(connection);
      encoderOf(participant).event(connection, ts, type, detail);
      return handOn(participant);
    },
  };
  await (source.format === 'webrtc-internals' ? readWebrtcInternals(source.text, sink) : readRtcstats(source.text, sink));
  const samples = [...encoders.values()].reduce((sum, e) => sum + e.rowCount, 0);
  if (!samples) throw new RecordingError('file', 'holds no getStats samples of any peer connection');
  for (const [participant, encoder] of encoders) for (const batch of encoder.finish()) await onBatch(batch, participant);
  return {
    format: source.format,
    hash: source.digest(),
    bytes: source.bytes(),
    userAgent,
    samples,
    connections: ssrcs.connections(),
    participants,
    loopback: ssrcs.loopback(),
  };
}

/** The connections seen, and the SSRCs each sent and received, to find connections of one page that talk to each other. */
class SsrcsSeen {
  private readonly sent = new Map<string, Set<number>>();
  private readonly received = new Map<string, Set<number>>();

  private readonly seen = new Set<string>();

  add(connection: string, snapshot: StatsSnapshot): void {
    this.seen.add(connection);
    for (const e of snapshot.values()) {
      const into = e.type === 'outbound-rtp' ? this.sent : e.type === 'inbound-rtp' ? this.received : null;
      if (into && typeof e.ssrc === 'number') (into.get(connection) ?? into.set(connection, new Set()).get(connection)!).add(e.ssrc);
    }
  }

  connections(): string[] {
    return [...this.seen];
  }

  /** Connections that receive what another connection of the page sends. */
  loopback(): string[] {
    const ends = new Set<string>();
    for (const [sender, sent] of this.sent) {
      for (const [receiver, received] of this.received) {
        if (sender !== receiver && [...sent].some((ssrc) => received.has(ssrc))) ends.add(sender).add(receiver);
      }
    }
    return [...ends].sort();
  }
}
