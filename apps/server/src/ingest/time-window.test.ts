import { decodeBatch } from '@rtcscope/protocol';
import { describe, expect, it } from 'vitest';
import { MAX_AGE_MS, MAX_AHEAD_MS, timeOutsideWindow } from './time-window.js';

const now = Date.UTC(2026, 10, 24, 12);
const decoded = (batch: Record<string, unknown>) => {
  const d = decodeBatch(batch, new Set([0]), new Set([0]));
  if (!d.ok) throw new Error(d.error.message);
  return d.value;
};

describe('timeOutsideWindow', () => {
  it('takes a message whose every time is within the window', () => {
    const batch = { n: 0, t0: now - 1000, s: [[0, 0, 0, 1]], c: [[0, 0, 500, 1]], e: [[0, 900, null, 'connection-added']] };
    expect(timeOutsideWindow(decoded(batch), now)).toBeNull();
    expect(timeOutsideWindow(decoded({ n: 0, t0: now - MAX_AGE_MS }), now)).toBeNull();
    expect(timeOutsideWindow(decoded({ n: 0, t0: now + MAX_AHEAD_MS }), now)).toBeNull();
  });

  it('names the base time of a message that carries only events or metadata', () => {
    expect(timeOutsideWindow(decoded({ n: 0, t0: Date.UTC(2283, 0, 1), metadata: { a: 1 } }), now)).toEqual({
      field: 't0',
      ts: Date.UTC(2283, 0, 1),
    });
    expect(timeOutsideWindow(decoded({ n: 0, t0: Date.UTC(2001, 9, 1), e: [[0, 0, null, 'connection-added']] }), now)).toMatchObject({
      field: 't0',
    });
  });

  it('names the sample or event whose offset takes it outside, though the base time is inside', () => {
    const t0 = now + MAX_AHEAD_MS - 1000;
    expect(
      timeOutsideWindow(
        decoded({
          n: 0,
          t0,
          s: [
            [0, 0, 0, 1],
            [0, 1, 2000, 1],
          ],
        }),
        now,
      ),
    ).toEqual({ field: 's[1][2]', ts: t0 + 2000 });
    expect(timeOutsideWindow(decoded({ n: 0, t0, c: [[0, 0, 5000, 1]] }), now)).toMatchObject({ field: 'c[0][2]' });
    expect(
      timeOutsideWindow(
        decoded({
          n: 0,
          t0,
          e: [
            [0, 0, null, 'connection-added'],
            [1, 60_000, null, 'connection-added'],
          ],
        }),
        now,
      ),
    ).toEqual({ field: 'e[1][1]', ts: t0 + 60_000 });
  });
});
