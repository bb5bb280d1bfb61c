import type { PrecallReport, PrecallTransport, PrecallTransportCheck } from '@rtcscope/protocol';
import { RelayPair } from './relay-pair.js';

type Gathering = PrecallReport['gathering'];
type CandidateType = Gathering['candidates'][number]['type'];
const TYPES: readonly string[] = ['host', 'srflx', 'prflx', 'relay'];

/** The way a TURN URL reaches its server: `turns:` is TLS over TCP, `?transport=tcp` plain TCP, else UDP. */
export function transportOf(url: string): PrecallTransport | null {
  if (url.startsWith('turns:')) return 'tls';
  if (!url.startsWith('turn:')) return null;
  return /\?transport=tcp$/i.test(url) ? 'tcp' : 'udp';
}

/** Every candidate one connection gathers with all the servers, counted by type and protocol. */
export async function gatherCandidates(iceServers: RTCIceServer[], timeoutMs: number): Promise<Gathering> {
  const pc = new RTCPeerConnection({ iceServers });
  const counts = new Map<string, number>();
  const start = performance.now();
  try {
    pc.createDataChannel('rtcscope-precall');
    const complete = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      pc.addEventListener('icecandidate', (e) => {
        if (!e.candidate) {
          clearTimeout(timer);
          return resolve(true);
        }
        const type = e.candidate.type ?? '';
        if (!TYPES.includes(type)) return;
        const key = `${type} ${e.candidate.protocol ?? 'udp'}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      });
    });
    await pc.setLocalDescription(await pc.createOffer());
    const done = await complete;
    return {
      durationMs: Math.round(performance.now() - start),
      complete: done,
      candidates: [...counts].map(([key, count]) => {
        const [type, protocol] = key.split(' ') as [CandidateType, string];
        return { type, protocol, count };
      }),
    };
  } finally {
    pc.close();
  }
}

/**
 * Each TURN URL on its own: a relay allocated through it and two connections joined through that relay
 * (a data channel), with the time each took. All at once, so a blocked way costs one timeout, not one each.
 */
export function checkTransports(iceServers: RTCIceServer[], timeoutMs: number): Promise<PrecallTransportCheck[]> {
  const ways = iceServers.flatMap((server) =>
    (Array.isArray(server.urls) ? server.urls : [server.urls]).flatMap((url) => {
      const transport = transportOf(url);
      return transport ? [{ server: { ...server, urls: [url] }, url, transport }] : [];
    }),
  );
  return Promise.all(
    ways.map(async ({ server, url, transport }): Promise<PrecallTransportCheck> => {
      try {
        const pair = await RelayPair.join({ iceServers: [server], timeoutMs, prepare: (a) => a.createDataChannel('rtcscope-precall') });
        pair.close();
        const { allocateMs, peerConnectionMs } = pair.timing;
        return {
          transport,
          url,
          connected: true,
          ...(allocateMs === undefined ? {} : { allocateMs }),
          ...(peerConnectionMs === undefined ? {} : { connectMs: peerConnectionMs }),
        };
      } catch (err) {
        return { transport, url, connected: false, error: (err as Error).message.slice(0, 400) };
      }
    }),
  );
}
