import { describe, expect, it } from 'vitest';
import { labSetMetadata, labSetOf, labSetsOf } from './set-marks.js';

/** As the SDK records `setMetadata`: a `metadata` event whose detail is the metadata's JSON. */
const recorded = (ts: number, metadata: object) => ({ ts, type: 'metadata', detail: JSON.stringify(metadata) });

describe('lab set marks', () => {
  it("reads back, in time order, the marks the lab wrote into a call's events", () => {
    const up = { link: 'p0-up', rateKbps: 500, delayMs: 10, lossPct: 0 };
    const down = { link: 'p1-down', rateKbps: null, delayMs: 50, lossPct: null };
    const events = [
      recorded(2500, labSetMetadata(down)),
      recorded(1500, labSetMetadata(up)),
      { ts: 1000, type: 'connection-state', detail: 'connected' },
    ];
    expect(labSetsOf(events)).toEqual([
      { ...up, ts: 1500 },
      { ...down, ts: 2500 },
    ]);
  });

  it('takes no other metadata, and nothing that only mentions a mark, for one', () => {
    expect(labSetOf(recorded(1, { room: 'x' }))).toBeNull();
    expect(labSetOf(recorded(1, { note: 'labSet' }))).toBeNull();
    expect(labSetOf({ ts: 1, type: 'metadata', detail: '{"labSet": "not json' })).toBeNull();
    expect(labSetOf({ ts: 1, type: 'track-added', detail: 'labSet' })).toBeNull();
  });
});
