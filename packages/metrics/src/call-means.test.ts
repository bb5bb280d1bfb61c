import { describe, expect, it } from 'vitest';
import { callMeans, meanRoles } from './call-means.js';

describe('call means', () => {
  it('averages loss over every received stream, audio and video, and RTT over every sent one', () => {
    const means = callMeans([
      { direction: 'in', kind: 'video', rttMs: null, lossPct: 10, fps: 20 },
      { direction: 'in', kind: 'audio', rttMs: null, lossPct: 2, fps: null },
      { direction: 'out', kind: 'video', rttMs: 40, lossPct: 50, fps: 30 },
      { direction: 'out', kind: 'audio', rttMs: 60, lossPct: null, fps: null },
    ]);
    expect(means).toEqual({ rttMs: 50, lossPct: 6, fps: 20 });
  });

  it('has nothing to average without samples of a role', () => {
    expect(callMeans([{ direction: 'out', kind: 'video', rttMs: null, lossPct: 3, fps: 30 }])).toEqual({
      rttMs: null,
      lossPct: null,
      fps: null,
    });
  });

  it('gives the roles the server sums by', () => {
    expect(meanRoles('in', 'audio')).toEqual({ rtt: false, loss: true, fps: false });
    expect(meanRoles('out', 'video')).toEqual({ rtt: true, loss: false, fps: false });
  });
});
