import type { Browser, Page } from '@playwright/test';
import type { Scenario } from '@rtcscope/scenario';
import { peerContext } from '../browser/chromium.js';
import type { LabSetMark } from '@rtcscope/experiments';
import { connectPeers, hangUp, markConditions, openPeer, truth, type TruthSnapshot } from '../browser/peer.js';
import { loopbackCandidate, withOnlyCandidate } from '../browser/sdp.js';
import { type Endpoint, PairRelay } from '../emulator/udp-relay.js';
import type { RunLinks } from './links.js';

export interface CallSetup {
  browser: Browser;
  server: string;
  ingestKey: string;
  callId: string;
  scenario: Scenario;
  metadata: Record<string, string | number | boolean>;
  links: RunLinks;
}

/**
 * One call of the lab: a Chromium page per participant, monitored by the SDK, and a peer connection for
 * every pair (a full mesh; a pair is the mesh of two). Each connection's media reaches the other side
 * only through a relay over the emulated links of that pair's path; calls on a shared bottleneck pass
 * the same link objects, so they really compete.
 */
export class LabCall {
  private constructor(
    readonly callId: string,
    private readonly pages: Page[],
    private readonly relays: PairRelay[],
  ) {}

  static async start(s: CallSetup): Promise<LabCall> {
    const n = s.scenario.participants.count;
    const pages = await Promise.all([...Array(n).keys()].map(async () => (await peerContext(s.browser)).newPage()));
    const relays: PairRelay[] = [];
    const call = new LabCall(s.callId, pages, relays);
    try {
      for (const [k, page] of pages.entries()) {
        await openPeer(page, {
          server: s.server,
          ingestKey: s.ingestKey,
          callId: s.callId,
          participantId: `p${k}`,
          metadata: s.metadata,
          video: s.scenario.participants.video,
          codec: s.scenario.participants.codec,
        });
      }
      for (let i = 0; i < n; i++) {
        for (let j = i + 1; j < n; j++) {
          const path = s.links.path(i, j);
          const relay = await PairRelay.open(path.aToB, path.bToA);
          relays.push(relay);
          let a: Endpoint | null = null;
          await connectPeers(pages[i]!, pages[j]!, {
            label: n === 2 ? 'pc1' : `p${i}-p${j}`,
            offer: (sdp) => {
              a = loopbackCandidate(sdp);
              return withOnlyCandidate(sdp, relay.forA);
            },
            answer: (sdp) => {
              const b = loopbackCandidate(sdp);
              if (!a || !b) throw new Error('a peer offered no UDP candidate on 127.0.0.1');
              relay.connect(a, b);
              return withOnlyCandidate(sdp, relay.forB);
            },
            ...(s.scenario.participants.maxBitrateKbps ? { maxBitrateKbps: s.scenario.participants.maxBitrateKbps } : {}),
          });
        }
      }
      return call;
    } catch (err) {
      await call.close();
      throw err;
    }
  }

  /** Participant `k`'s page, for acting on it as a person or a failing device would (benchmarks). */
  page(k: number): Page {
    return this.pages[k]!;
  }

  /** Notes a link change in the call's events, through the first participant's monitor. */
  mark(mark: LabSetMark): Promise<void> {
    return markConditions(this.pages[0]!, mark);
  }

  /** Each participant's own getStats view of a pair call (its `pc1`), for measuring without the server. */
  snapshots(): Promise<TruthSnapshot[]> {
    return Promise.all(this.pages.map((p) => truth(p)));
  }

  /** Every monitor says goodbye (a last sample), then the pages and relays close. */
  async hangUp(): Promise<void> {
    await Promise.all(this.pages.map((p) => hangUp(p).catch(() => {})));
    await this.close();
  }

  private async close(): Promise<void> {
    await Promise.all(this.pages.map((p) => p.context().close().catch(() => {})));
    for (const r of this.relays) r.close();
  }
}
