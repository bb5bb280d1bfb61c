import type { RunResult } from '@rtcscope/experiments';
import { expect } from '@playwright/test';
import { type CallDetail, type CallDiagnosis, type Series, streamFieldIndex } from '@rtcscope/protocol';
import { parseScenario, type Scenario } from '@rtcscope/scenario';

/**
 * The call the SFU tests make, through Janus and through LiveKit alike: three people, one in Firefox,
 * clean until LOSS_FROM_S, in which p0 mutes and p1 turns its camera off from AWAY_FROM_S until AWAY_TO_S;
 * p2's downlink loses 10 % until LOSS_TO_S; from CAP_FROM_S p0's uplink is capped.
 */
export const AWAY_FROM_S = 6;
export const AWAY_TO_S = 18;
export const LOSS_FROM_S = 25;
export const LOSS_TO_S = 45;
export const CAP_FROM_S = 50;
export const END_S = 85;

export function sfuScenario(o: { id: string; title: string; sfu: 'janus' | 'livekit'; capKbps: number }): Scenario {
  const checked = parseScenario({
    id: o.id,
    title: o.title,
    participants: {
      count: 3,
      topology: 'sfu',
      sfu: o.sfu,
      codec: 'VP8',
      // 15 fps: at 30, three browsers, the SFU, the server and PostgreSQL held this 2-core host at 96–100 %
      // for the whole call, and stalls from CPU starvation showed as freezes and jitter anywhere (also in
      // the clean first 25 s); at 15 it stays at 60–80 % and p0 still sends over twice the cap.
      video: { width: 640, height: 360, fps: 15 },
      browsers: ['chromium', 'chromium', 'firefox'],
    },
    links: { mode: 'per-participant', uplink: {}, downlink: {} },
    schedule: [
      { at: LOSS_FROM_S, participant: 2, on: 'downlink', set: { loss: { model: 'random', pct: 10 } } },
      { at: LOSS_TO_S, participant: 2, on: 'downlink', set: { loss: { model: 'random', pct: 0 } } },
      { at: CAP_FROM_S, participant: 0, on: 'uplink', set: { rateKbps: o.capKbps } },
    ],
    actions: [
      { at: AWAY_FROM_S, participant: 0, do: 'mute' },
      { at: AWAY_FROM_S, participant: 1, do: 'camera-off' },
      { at: AWAY_TO_S, participant: 0, do: 'unmute' },
      { at: AWAY_TO_S, participant: 1, do: 'camera-on' },
    ],
    durationS: END_S,
  });
  if (!checked.ok) throw new Error(`${checked.error.field}: ${checked.error.message}`);
  return checked.value;
}

type Issues = CallDiagnosis['issues'];

/** The run's issues by phase, and said as a failure's message says them: who, what, when, on which stream, under which cause. */
export function issuesOf(run: RunResult, detail: CallDetail, diagnosis: CallDiagnosis) {
  const at = (s: number) => run.startedAt + s * 1000;
  // An issue's start is its first sample's time, which can read up to 2 s before the change that caused
  // it (1-s samples, each stamped by the browser's clock): a phase runs from 2 s before its change to 2 s
  // before the next (a clean phase to the loss's 25 s once held p2's freeze from it, at 24.8 s).
  const during = (from: number, to: number) => diagnosis.issues.filter((i) => i.start >= at(from) - 2000 && i.start < at(to) - 2000);
  const streams = detail.participants.flatMap((p) => p.connections.flatMap((c) => c.streams));
  const on = (streamId: number | null) => {
    const s = streams.find((x) => x.id === streamId);
    return s ? ` on ${s.direction} ${s.kind}${s.rid ? ` ${s.rid}` : ''}${s.from ? ` from ${s.from}` : ''}` : '';
  };
  const seconds = (ts: number) => ((ts - run.startedAt) / 1000).toFixed(1);
  const causeOf = (id: number) => {
    const c = diagnosis.issues.find((i) => i.id === id);
    return c ? `${c.participantId} ${c.type} at ${seconds(c.start)}–${c.end === null ? 'end' : seconds(c.end)} s` : `#${id}`;
  };
  const show = (issues: Issues) =>
    issues
      .map(
        (i) =>
          `${i.participantId} ${i.type} ${i.severity} at ${seconds(i.start)} s${on(i.streamId)}${i.causeId === null ? '' : ` (under ${causeOf(i.causeId)})`}`,
      )
      .join('; ') || 'none';
  /** What is raised as a cause, a warning or worse. */
  const causes = (issues: Issues) => issues.filter((i) => i.causeId === null && i.severity !== 'info');
  const evidence = (issues: Issues) => issues.map((i) => `${show([i])}: ${JSON.stringify(i.evidence)}`).join('\n');
  return { at, during, show, causes, evidence };
}

/**
 * Where the diagnosis places each fault of `sfuScenario`'s call, one story per problem. Clean (with the
 * mute and the camera off): no warning. p2's downlink: one cause, p2's (the SFU ends each publisher's
 * feedback loop, so no publisher hears of p2's loss), and everything p2 suffers meanwhile (its other
 * streams' loss, its freezes and concealment) under it. p0's uplink: p0's congestion, once (its simulcast
 * layers' under the first's), and what its subscribers suffer under it, nothing of their own.
 */
export function expectEachFaultPlaced(run: RunResult, detail: CallDetail, diagnosis: CallDiagnosis, series: Series): void {
  const { at, during, show, causes, evidence } = issuesOf(run, detail, diagnosis);
  console.log(
    `clean: ${show(during(0, LOSS_FROM_S))}\np2's downlink lossy: ${show(during(LOSS_FROM_S, LOSS_TO_S))}\np0's uplink capped: ${show(during(CAP_FROM_S, END_S))}`,
  );
  expect(show(causes(during(0, LOSS_FROM_S))), evidence(causes(during(0, LOSS_FROM_S)))).toBe('none');
  const lossy = causes(during(LOSS_FROM_S, LOSS_TO_S));
  expect(
    lossy.map((i) => `${i.participantId} ${i.type}`),
    evidence(lossy),
  ).toEqual(['p2 downlink-loss']);
  const p2Symptoms = during(LOSS_FROM_S, LOSS_TO_S).filter((i) => i.participantId === 'p2' && i !== lossy[0] && i.severity !== 'info');
  expect(show(p2Symptoms.filter((i) => i.causeId !== lossy[0]!.id))).toBe('none');
  const capped = causes(during(CAP_FROM_S, END_S));
  // What the congestion detector reads, said where it stays silent: p0's sent video, second by second.
  const [rtt, loss] = [streamFieldIndex('rttMs'), streamFieldIndex('lossPct')];
  const p0Video = new Set(
    detail.participants
      .find((p) => p.id === 'p0')!
      .connections.flatMap((c) => c.streams)
      .filter((s) => s.direction === 'out' && s.kind === 'video')
      .map((s) => s.id),
  );
  const p0Seconds = series.streams
    .filter((pt) => p0Video.has(pt.id) && pt.ts >= at(CAP_FROM_S - 5))
    .map((pt) => `${((pt.ts - run.startedAt) / 1000).toFixed(0)} s #${pt.id}: RTT ${pt.v[rtt]} ms, far end lost ${pt.v[loss]} %`)
    .join('\n');
  expect(
    capped.map((i) => `${i.participantId} ${i.type}`),
    `p0's sent video:\n${p0Seconds}`,
  ).toContain('p0 uplink-congestion');
  expect(capped.filter((i) => i.type === 'uplink-congestion').length, evidence(capped)).toBe(1);
  expect(show(capped.filter((i) => i.participantId !== 'p0')), evidence(capped)).toBe('none');
}
