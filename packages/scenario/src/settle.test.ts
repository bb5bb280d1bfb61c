import { describe, expect, it } from 'vitest';
import { findScenario } from './library.js';
import { shortestPhaseS, timeScaleWarnings } from './settle.js';

const bwSteps = findScenario('bw-steps')!;

describe('time scale warnings', () => {
  it('measures the shortest condition after scaling', () => {
    expect(shortestPhaseS(bwSteps, 1)).toBe(60);
    expect(shortestPhaseS(bwSteps, 0.01)).toBeCloseTo(0.6);
  });

  it('warns when a phase is shorter than the time to settle, and says which scale would do', () => {
    const [w] = timeScaleWarnings(bwSteps, 0.01);
    expect(w).toMatch(/0\.6 s/);
    expect(w).toMatch(/at least 0\.34/);
    expect(timeScaleWarnings(bwSteps, 0.34)).toEqual([]);
    expect(timeScaleWarnings(bwSteps, 1)).toEqual([]);
  });

  it('counts cross traffic joining and leaving as changes', () => {
    const fairness = findScenario('rtp-fairness')!;
    expect(shortestPhaseS(fairness, 1)).toBe(60);
    expect(timeScaleWarnings(fairness, 0.25)).toHaveLength(1);
  });
});
