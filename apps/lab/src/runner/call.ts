import type { Browser, Page } from '@playwright/test';
import type { Scenario } from '@rtcscope/scenario';
import { loopbackContext } from '../browser/chromium.js';
import { connectPeers, hangUp, openPeer } from '../browser/peer.js';
import { loopbackCandidate, withOnlyCandidate } from '../browser/sdp.js';
import type { EmulatedLink } from '../emulator/link.js';
import { type Endpoint, PairRelay } from '../emulator/udp-relay.js';

export interface CallSetup {
  browser: Browser;
  server: string;
  ingestKey: string;
  callId: string;
  scenario: Scenario;
  metadata: Record<string, string | number | boolean>;
  /** Links the caller's (p0's) packets cross to the callee, and back. */
  aToB: readonly EmulatedLink[];
  bToA: readonly EmulatedLink[];
}

/**
 * One two-party call of the lab: two Chromium pages monitored by the SDK, whose media reaches the other
 * side only through a relay over the given emulated links (calls on a shared bottleneck pass the same
 * link objects, so they really compete).
 */
export class LabCall {
  private constructor(
    readonly callId: string,
    private readonly pages: Page[],
    private readonly relay: PairRelay,
  ) {}

  static async start(s: CallSetup): Promise<LabCall> {
    const relay = await PairRelay.open(s.aToB, s.bToA);
    const pages = await Promise.all([0, 1].map(async () => (await loopbackContext(s.browser)).newPage()));
    const call = new LabCall(s.callId, pages, relay);
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
      let a: Endpoint | null = null;
      await connectPeers(
        pages[0]!,
        pages[1]!,
        {
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
        },
        s.scenario.participants.maxBitrateKbps,
      );
      return call;
    } catch (err) {
      await call.close();
      throw err;
    }
  }

  /** Both monitors say goodbye (a last sample), then the pages and the relay close. */
  async hangUp(): Promise<void> {
    await Promise.all(this.pages.map((p) => hangUp(p).catch(() => {})));
    await this.close();
  }

  private async close(): Promise<void> {
    await Promise.all(this.pages.map((p) => p.context().close().catch(() => {})));
    this.relay.close();
  }
}
