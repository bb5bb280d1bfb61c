import type { ConnectionDescriptor, StreamDescriptor } from '@rtcscope/protocol';
import type { ConnectionSample, StreamIdentity } from './normalize.js';

/**
 * Small per-session indexes for connections and streams, and which descriptors the server has not
 * acknowledged yet on the current socket. After a reconnect everything is declared again: the server
 * keeps these indexes per socket only.
 */
export class DescriptorRegistry {
  private readonly connections = new Map<string, ConnectionDescriptor>();
  private readonly streams = new Map<string, StreamDescriptor>();
  private readonly unsentConnections = new Set<string>();
  private readonly unsentStreams = new Set<string>();
  /** The app's names for tracks (`Monitor.setTrackId`), by the browser's track id. */
  private readonly trackNames = new Map<string, string>();
  private nextConnection = 0;
  private nextStream = 0;

  connection(key: string, sample?: ConnectionSample | null): number {
    const known = this.connections.get(key);
    const next: ConnectionDescriptor = {
      i: known?.i ?? this.nextConnection++,
      key,
      ...candidateFields(sample, known),
    };
    if (!known || !sameJson(known, next)) {
      this.connections.set(key, next);
      this.unsentConnections.add(key);
    }
    return next.i;
  }

  stream(connIndex: number, streamKey: string, identity: StreamIdentity): number {
    const key = `${connIndex}|${streamKey}`;
    const known = this.streams.get(key);
    const trackId = identity.trackId === undefined ? undefined : (this.trackNames.get(identity.trackId) ?? identity.trackId);
    const next = {
      i: known?.i ?? this.nextStream++,
      conn: connIndex,
      ...identity,
      ...(trackId === undefined ? {} : { trackId }),
    } as StreamDescriptor;
    if (!known || !sameJson(known, next)) {
      this.streams.set(key, next);
      this.unsentStreams.add(key);
    }
    return next.i;
  }

  /** Streams of the browser's track `browserId` are declared (again) with `id` as their track. */
  nameTrack(browserId: string, id: string): void {
    this.trackNames.set(browserId, id);
  }

  unsent(): { conns: ConnectionDescriptor[]; streams: StreamDescriptor[]; keys: { conns: string[]; streams: string[] } } {
    const conns = [...this.unsentConnections];
    const streams = [...this.unsentStreams];
    return {
      conns: conns.map((k) => this.connections.get(k)).filter((d): d is ConnectionDescriptor => d !== undefined),
      streams: streams.map((k) => this.streams.get(k)).filter((d): d is StreamDescriptor => d !== undefined),
      keys: { conns, streams },
    };
  }

  /** How many descriptors wait to be sent. */
  get pending(): { conns: number; streams: number } {
    return { conns: this.unsentConnections.size, streams: this.unsentStreams.size };
  }

  markSent(keys: { conns: string[]; streams: string[] }): void {
    for (const k of keys.conns) this.unsentConnections.delete(k);
    for (const k of keys.streams) this.unsentStreams.delete(k);
  }

  markAllUnsent(): void {
    for (const k of this.connections.keys()) this.unsentConnections.add(k);
    for (const k of this.streams.keys()) this.unsentStreams.add(k);
  }
}

type CandidateType = NonNullable<ConnectionDescriptor['localCandidateType']>;
type Protocol = NonNullable<ConnectionDescriptor['localProtocol']>;
const CANDIDATE_TYPES: readonly string[] = ['host', 'srflx', 'prflx', 'relay'];
const PROTOCOLS: readonly string[] = ['udp', 'tcp'];

function candidateFields(sample: ConnectionSample | null | undefined, known: ConnectionDescriptor | undefined) {
  if (!sample) return pick(known);
  const out: Partial<ConnectionDescriptor> = {};
  if (CANDIDATE_TYPES.includes(sample.localCandidateType ?? '')) out.localCandidateType = sample.localCandidateType as CandidateType;
  if (PROTOCOLS.includes(sample.localProtocol ?? '')) out.localProtocol = sample.localProtocol as Protocol;
  if (CANDIDATE_TYPES.includes(sample.remoteCandidateType ?? '')) out.remoteCandidateType = sample.remoteCandidateType as CandidateType;
  if (PROTOCOLS.includes(sample.remoteProtocol ?? '')) out.remoteProtocol = sample.remoteProtocol as Protocol;
  return out;
}

function pick(known: ConnectionDescriptor | undefined): Partial<ConnectionDescriptor> {
  if (!known) return {};
  const { i: _i, key: _key, ...rest } = known;
  return rest;
}

function sameJson(a: object, b: object): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
