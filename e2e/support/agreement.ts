import { expect } from '@playwright/test';
import { mean } from '@rtcscope/metrics';
import type { TruthSnapshot } from '@rtcscope/lab';
import type { StoredRow } from './db.js';

/** A participant and its page's own getStats at the start and end of a window. */
export interface Window {
  participant: string;
  t1: TruthSnapshot;
  t2: TruthSnapshot;
}

/**
 * What rtcscope stored against what the browsers counted over the same window: the sender's video rate
 * and RTT, the receiver's frame rate, lost packets and last resolution. Tolerances: ±10 % rate and ±2 fps
 * (the windows differ by up to one sampling interval), ±5 ms RTT; lost packets and resolution exact.
 * Returns the stored rows it judged.
 */
export function expectAgreement(
  label: string,
  rows: StoredRow[],
  sender: Window,
  receiver: Window,
): { sent: StoredRow[]; received: StoredRow[] } {
  const within = (r: StoredRow, w: Window) => r.ts > w.t1.wallclock + 500 && r.ts <= w.t2.wallclock + 500;
  const sent = rows.filter((r) => r.participant === sender.participant && r.direction === 'out' && r.kind === 'video' && within(r, sender));
  const received = rows.filter(
    (r) => r.participant === receiver.participant && r.direction === 'in' && r.kind === 'video' && within(r, receiver),
  );
  expect(sent.length).toBeGreaterThanOrEqual(8);
  expect(received.length).toBeGreaterThanOrEqual(8);

  const [s1, s2, r1, r2] = [sender.t1.out!, sender.t2.out!, receiver.t1.in!, receiver.t2.in!];
  const truthKbps = ((s2.bytesSent - s1.bytesSent) * 8) / (s2.timestamp - s1.timestamp);
  const truthFps = ((r2.framesDecoded - r1.framesDecoded) * 1000) / (r2.timestamp - r1.timestamp);
  const truthRtt = (1000 * (s2.rttTotal - s1.rttTotal)) / Math.max(1, s2.rttCount - s1.rttCount);
  const truthLost = r2.packetsLost - r1.packetsLost;
  const storedKbps = mean(sent.map((r) => r.kbps ?? 0))!;
  const storedFps = mean(received.map((r) => r.fps ?? 0))!;
  const storedRtt = mean(sent.filter((r) => r.rttMs !== null).map((r) => r.rttMs!))!;
  const storedLost = received.reduce((n, r) => n + (r.packetsLost ?? 0), 0);
  console.log(
    `${label}: data rate getStats ${truthKbps.toFixed(1)} / rtcscope ${storedKbps.toFixed(1)} kbit/s; frame rate ${truthFps.toFixed(1)} / ${storedFps.toFixed(1)} fps; ` +
      `RTT ${truthRtt.toFixed(2)} / ${storedRtt.toFixed(2)} ms; lost ${truthLost} / ${storedLost} packets`,
  );
  expect(truthKbps).toBeGreaterThan(100);
  expect(Math.abs(storedKbps - truthKbps) / truthKbps).toBeLessThan(0.1);
  expect(Math.abs(storedFps - truthFps)).toBeLessThan(2);
  expect(Math.abs(storedRtt - truthRtt)).toBeLessThan(5);
  expect(storedLost).toBe(truthLost);
  expect([received.at(-1)!.width, received.at(-1)!.height]).toEqual([r2.frameWidth, r2.frameHeight]);
  return { sent, received };
}
