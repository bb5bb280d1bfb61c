// What a calibration campaign runs: the impairments (cases), the setups they run in, and how many times.
import type { Conditions } from '@rtcscope/scenario';

export interface Case {
  name: string;
  family: string;
  /** What is set on p0's uplink (the link p1's received video crosses) from the call's start. */
  set?: Conditions;
  /** p0's page held to this share of a core. */
  cores?: number;
}

const loss = (pct: number) => ({ model: 'random' as const, pct });

export const CASES: readonly Case[] = [
  { name: 'clean', family: 'clean' },
  ...[1200, 600, 300, 150].map((kbps): Case => ({ name: `cap-${kbps}`, family: 'cap', set: { rateKbps: kbps } })),
  ...[2, 5, 10, 20].map((pct): Case => ({ name: `loss-${pct}`, family: 'random loss', set: { loss: loss(pct) } })),
  // Where retransmission cannot repair loss in time: the same loss 150 ms away, a round trip of 150+ ms.
  ...[5, 10].map((pct): Case => ({ name: `loss-${pct}-delay-150`, family: 'long-path loss', set: { delayMs: 150, loss: loss(pct) } })),
  // Gilbert-Elliott: ~3.8 % lost in bursts of 4 (a far Wi-Fi hop, scenario library), and ~13 % in bursts of 5.
  { name: 'bursty-4', family: 'bursty loss', set: { loss: { model: 'gilbert-elliott', p: 0.01, r: 0.25, badPct: 100, goodPct: 0 } } },
  { name: 'bursty-13', family: 'bursty loss', set: { loss: { model: 'gilbert-elliott', p: 0.03, r: 0.2, badPct: 100, goodPct: 0 } } },
  ...[150, 400].map((ms): Case => ({ name: `delay-${ms}`, family: 'delay', set: { delayMs: ms } })),
  ...[30, 80].map((ms): Case => ({ name: `jitter-${ms}`, family: 'jitter', set: { jitterMs: ms } })),
  ...[0.4, 0.2].map((cores): Case => ({ name: `cpu-${cores * 100}`, family: 'cpu', cores })),
];

/** The levels a setup other than the first runs: one or two of each family, enough to rank within it. */
export const VARIANT_CASES: readonly string[] = [
  'clean',
  'cap-600',
  'cap-300',
  'loss-10',
  'loss-10-delay-150',
  'bursty-13',
  'jitter-80',
  'cpu-20',
];

/** Where a call runs: the browser that receives (the sender is Chromium, whose fake camera plays the clip), the clip's height, the codec, an SFU. */
export interface Setup {
  receiver: 'chromium' | 'firefox';
  height: 360 | 720;
  codec: 'VP8' | 'VP9' | 'H264';
  sfu: 'livekit' | null;
}

export const setupName = (s: Setup): string => `${s.receiver} ${s.height}p ${s.codec}${s.sfu ? ` via ${s.sfu}` : ''}`;

/**
 * The published campaign's setups: the first runs every case; the others the variant levels, each
 * changing one thing from it — the picture's size, the codec, the receiving browser.
 */
export const DEFAULT_SETUPS = 'chromium-360-VP8,chromium-720-VP8,chromium-360-VP9,firefox-360-VP8';

/** Setups as `receiver-height-codec[-livekit]`, comma-separated (BENCH_QUALITY_SETUPS), or an error saying which is wrong. */
export function parseSetups(text: string): Setup[] {
  return text.split(',').map((item) => {
    const [receiver, height, codec, sfu, ...rest] = item.trim().split('-');
    const ok =
      (receiver === 'chromium' || receiver === 'firefox') &&
      (height === '360' || height === '720') &&
      (codec === 'VP8' || codec === 'VP9' || codec === 'H264') &&
      (sfu === undefined || sfu === 'livekit') &&
      rest.length === 0;
    if (!ok)
      throw new Error(
        `BENCH_QUALITY_SETUPS: "${item}" is not receiver-height-codec[-livekit] (receiver chromium or firefox, height 360 or 720, codec VP8, VP9 or H264)`,
      );
    return { receiver, height: Number(height) as 360 | 720, codec, sfu: sfu ?? null } as Setup;
  });
}

/** One call of the campaign: its setup, content, case and run (1, 2, …). */
export interface CallPlan<Content extends string = string> {
  setup: Setup;
  content: Content;
  case: Case;
  run: number;
}

/** A call's key: what a resumed campaign skips when it has measured it already. */
export const callKey = (p: { setup: string; content: string; case: string; run: number }): string =>
  `${p.setup} / ${p.content} / ${p.case} / run ${p.run}`;

/**
 * Every call, run by run: each run goes through every setup, content and case before the next starts, so
 * a campaign stopped early has whole runs, and no one case's runs sit together in one stretch of the
 * machine's day.
 */
export function plan<Content extends string>(
  setups: readonly Setup[],
  contents: readonly Content[],
  runs: number,
  cases: (setup: Setup, first: boolean) => readonly Case[],
): CallPlan<Content>[] {
  const out: CallPlan<Content>[] = [];
  for (let run = 1; run <= runs; run++)
    for (const [k, setup] of setups.entries())
      for (const content of contents) for (const c of cases(setup, k === 0)) out.push({ setup, content, case: c, run });
  return out;
}
