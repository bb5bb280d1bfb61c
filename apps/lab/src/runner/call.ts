import type { Browser } from '@playwright/test';
import type { Browser as FirefoxBrowser } from 'puppeteer-core';
import type { ParticipantAction, Scenario } from '@rtcscope/scenario';
import { peerContext } from '../browser/chromium.js';
import { limitCpu } from '../browser/cpu-limit.js';
import { firefoxPeer } from '../browser/firefox.js';
import type { LabSetMark } from '@rtcscope/experiments';
import {
  act,
  connectPeers,
  hangUp,
  markConditions,
  openPeer,
  type PeerPage,
  type SampleTally,
  truth,
  type TruthSnapshot,
} from '../browser/peer.js';
import { hostCandidate, withOnlyCandidate, withOpusDtx } from '../browser/sdp.js';
import { type Endpoint, PairRelay } from '../emulator/udp-relay.js';
import type { JanusServer } from '../sfu/janus-server.js';
import { LiveKitRoom } from '../sfu/livekit-room.js';
import type { LiveKitServer } from '../sfu/livekit-server.js';
import { VideoRoom } from '../sfu/videoroom.js';
import type { RunLinks } from './links.js';

export interface CallSetup {
  browser: Browser;
  /** For the participants the scenario puts in Firefox; null when none is. */
  firefox: FirefoxBrowser | null;
  server: string;
  ingestKey: string;
  callId: string;
  scenario: Scenario;
  metadata: Record<string, string | number | boolean>;
  links: RunLinks;
  /** The run's SFU, for a scenario of topology `sfu`. */
  sfu?: JanusServer | LiveKitServer;
  /** A script each Chromium participant's page runs before any of its own (`RunOptions.pageScript`). */
  pageScript?: string;
}

/** A participant's page and how to close it. */
interface Participant {
  page: PeerPage;
  close(): Promise<void>;
}

/** What a call closes when it ends: a relay, its members' place in an SFU's room, or a page's CPU limit. */
interface Closable {
  close(): void | Promise<void>;
}

/**
 * One call of the lab: a page per participant (in Chromium, or in Firefox where the scenario says),
 * monitored by the SDK, and a peer connection for every pair (a full mesh; a pair is the mesh of two),
 * or, through an SFU (Janus or LiveKit), each participant's publishing and subscribing connections to it. Each connection's
 * media reaches the other side only through a relay over the emulated links of its path; calls on a
 * shared bottleneck pass the same link objects, so they really compete. A participant the scenario
 * gives less CPU is held to it from before its connections start, as a slower device would be.
 */
export class LabCall {
  private constructor(
    readonly callId: string,
    private readonly participants: Participant[],
    private readonly closables: Closable[],
  ) {}

  private get pages(): PeerPage[] {
    return this.participants.map((p) => p.page);
  }

  static async start(s: CallSetup): Promise<LabCall> {
    const n = s.scenario.participants.count;
    const viewers = s.scenario.participants.viewers ?? [];
    const browsers = s.scenario.participants.browsers ?? Array<'chromium'>(n).fill('chromium');
    const participants = await Promise.all(
      browsers.map((b) => (b === 'firefox' ? firefoxParticipant(s.firefox) : chromiumParticipant(s.browser, s.pageScript))),
    );
    const closables: Closable[] = [];
    const call = new LabCall(s.callId, participants, closables);
    const pages = call.pages;
    try {
      for (const [k, page] of pages.entries()) {
        await openPeer(page, {
          server: s.server,
          ingestKey: s.ingestKey,
          callId: s.callId,
          participantId: `p${k}`,
          metadata: { ...s.metadata, browser: browsers[k]! },
          video: s.scenario.participants.video,
          codec: s.scenario.participants.codec,
          ...(s.scenario.participants.audioOnly ? { audioOnly: true } : {}),
          ...(s.sfu?.kind === 'livekit' ? { livekit: true, origin: s.sfu.httpUrl } : {}),
        });
      }
      for (const [k, cores] of (s.scenario.participants.cpu ?? []).entries()) {
        if (cores !== null) closables.push({ close: await limitCpu(pages[k]!, cores) });
      }
      if (s.scenario.participants.topology === 'sfu') {
        if (!s.sfu) throw new Error('the scenario runs through an SFU, and none was started for the run');
        const members = pages.map((page, k) => ({ page, path: s.links.toSfu(k), ...(viewers.includes(k) ? { watches: true } : {}) }));
        const { codec, maxBitrateKbps, audioOnly, video } = s.scenario.participants;
        const options = { codec, ...(maxBitrateKbps ? { maxBitrateKbps } : {}) };
        closables.push(
          s.sfu.kind === 'livekit'
            ? await LiveKitRoom.connect(s.sfu, members, { ...options, name: s.callId, fps: video.fps, ...(audioOnly ? { audioOnly } : {}) })
            : await VideoRoom.connect(s.sfu, members, options),
        );
        return call;
      }
      const dtx = (sdp: string) => (s.scenario.participants.opusDtx ? withOpusDtx(sdp) : sdp);
      const watches = (k: number) => viewers.includes(k);
      for (let i = 0; i < n; i++) {
        for (let j = i + 1; j < n; j++) {
          // Two viewers have nothing to send each other: as in an app, they are not connected.
          if (watches(i) && watches(j)) continue;
          const path = s.links.path(i, j);
          const relay = await PairRelay.open(path.aToB, path.bToA);
          closables.push(relay);
          let a: Endpoint | null = null;
          await connectPeers(pages[i]!, pages[j]!, {
            label: n === 2 ? 'pc1' : `p${i}-p${j}`,
            offer: (sdp) => {
              a = hostCandidate(sdp);
              return dtx(withOnlyCandidate(sdp, relay.forA));
            },
            answer: (sdp) => {
              const b = hostCandidate(sdp);
              if (!a || !b) throw new Error('a peer offered no UDP host candidate on this machine');
              relay.connect(a, b);
              return dtx(withOnlyCandidate(sdp, relay.forB));
            },
            ...(s.scenario.participants.maxBitrateKbps ? { maxBitrateKbps: s.scenario.participants.maxBitrateKbps } : {}),
            ...(watches(i) ? { viewer: 'caller' as const } : watches(j) ? { viewer: 'callee' as const } : {}),
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
  page(k: number): PeerPage {
    return this.pages[k]!;
  }

  /** Participant `k` does what a person does in an app: mutes, turns the camera off, and back. */
  act(k: number, what: ParticipantAction['do']): Promise<void> {
    return act(this.pages[k]!, what);
  }

  /** Notes a link change in the call's events, through the first participant's monitor. */
  mark(mark: LabSetMark): Promise<void> {
    return markConditions(this.pages[0]!, mark);
  }

  /** Each participant's own getStats view of a pair call (its `pc1`), for measuring without the server. */
  snapshots(): Promise<TruthSnapshot[]> {
    return Promise.all(this.pages.map((p) => truth(p)));
  }

  /**
   * Every monitor says goodbye (a last sample), then the pages and relays close. Says what each
   * participant's monitor stored (null for a page that could not say).
   */
  async hangUp(): Promise<(SampleTally | null)[]> {
    const tallies = await Promise.all(this.pages.map((p) => hangUp(p).catch(() => null)));
    await this.close();
    return tallies;
  }

  private async close(): Promise<void> {
    await Promise.all(this.participants.map((p) => p.close().catch(() => {})));
    // Every one is closed even when another fails; the first failure is thrown after.
    const failures: unknown[] = [];
    for (const c of this.closables) await Promise.resolve(c.close()).catch((err: unknown) => failures.push(err));
    if (failures.length) throw failures[0];
  }
}

async function chromiumParticipant(browser: Browser, script: string | undefined): Promise<Participant> {
  const context = await peerContext(browser);
  if (script) await context.addInitScript({ content: script });
  return { page: await context.newPage(), close: () => context.close() };
}

async function firefoxParticipant(firefox: FirefoxBrowser | null): Promise<Participant> {
  if (!firefox) throw new Error('the scenario puts a participant in Firefox, but no Firefox was started for the run');
  const page = await firefox.newPage();
  return { page: firefoxPeer(page), close: () => page.close() };
}
