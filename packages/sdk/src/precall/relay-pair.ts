/** Set-up times of a pair of connections, from the first offer. */
export interface PairTiming {
  /** The first relayed candidate of the offering side: the TURN server allocated it a relay. */
  allocateMs?: number;
  /** ICE checks succeeded. */
  iceMs?: number;
  /** DTLS done after ICE: the connection is up. */
  dtlsMs?: number;
  peerConnectionMs?: number;
}

export interface RelayPairOptions {
  iceServers: RTCIceServer[];
  timeoutMs: number;
  /** Adds what the offer should carry (a data channel, media); called before the offer. */
  prepare: (a: RTCPeerConnection) => void;
}

/**
 * Two connections in the page joined only through the TURN server (`iceTransportPolicy: 'relay'`):
 * what one sends leaves the browser for the TURN server and comes back to the other, as a call's media
 * through that server would.
 */
export class RelayPair {
  /** performance.now() at the first offer. */
  startedAt = 0;

  private constructor(
    readonly a: RTCPeerConnection,
    readonly b: RTCPeerConnection,
    readonly timing: PairTiming,
  ) {}

  static async join(options: RelayPairOptions): Promise<RelayPair> {
    const config: RTCConfiguration = { iceServers: options.iceServers, iceTransportPolicy: 'relay' };
    const a = new RTCPeerConnection(config);
    const b = new RTCPeerConnection(config);
    const pair = new RelayPair(a, b, {});
    try {
      await pair.connect(options);
      return pair;
    } catch (err) {
      pair.close();
      throw err;
    }
  }

  close(): void {
    this.a.close();
    this.b.close();
  }

  private async connect(options: RelayPairOptions): Promise<void> {
    const { a, b, timing } = this;
    const start = (this.startedAt = performance.now());
    const since = () => Math.round(performance.now() - start);
    let relays = 0;
    let gathered = false;
    const failed = new Promise<never>((_, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              relays
                ? `not connected within ${options.timeoutMs / 1000} s`
                : `no relay within ${options.timeoutMs / 1000} s: the TURN server did not answer`,
            ),
          ),
        options.timeoutMs,
      );
      const check = () => {
        if (a.connectionState === 'failed' || b.connectionState === 'failed')
          reject(new Error('ICE failed: the relays could not reach each other'));
        // Gathering over with no relay: nothing to connect through.
        if (gathered && relays === 0) reject(new Error('no relay: the TURN server refused the credentials or could not be reached'));
      };
      a.addEventListener('connectionstatechange', check);
      b.addEventListener('connectionstatechange', check);
      a.addEventListener('icegatheringstatechange', () => {
        gathered = a.iceGatheringState === 'complete';
        check();
      });
      a.addEventListener('connectionstatechange', () => a.connectionState === 'connected' && clearTimeout(timer));
    });
    failed.catch(() => {});
    const connected = new Promise<void>((resolve) => {
      a.addEventListener('iceconnectionstatechange', () => {
        if ((a.iceConnectionState === 'connected' || a.iceConnectionState === 'completed') && timing.iceMs === undefined)
          timing.iceMs = since();
      });
      a.addEventListener('connectionstatechange', () => {
        if (a.connectionState !== 'connected') return;
        timing.peerConnectionMs = since();
        timing.dtlsMs = Math.max(0, timing.peerConnectionMs - (timing.iceMs ?? timing.peerConnectionMs));
        resolve();
      });
    });
    a.addEventListener('icecandidate', (e) => {
      if (e.candidate?.type === 'relay' && relays++ === 0) timing.allocateMs = since();
      if (e.candidate) void b.addIceCandidate(e.candidate).catch(() => {});
    });
    b.addEventListener('icecandidate', (e) => e.candidate && void a.addIceCandidate(e.candidate).catch(() => {}));
    options.prepare(a);
    await a.setLocalDescription(await a.createOffer());
    await b.setRemoteDescription(a.localDescription!);
    await b.setLocalDescription(await b.createAnswer());
    await a.setRemoteDescription(b.localDescription!);
    await Promise.race([connected, failed]);
  }
}
