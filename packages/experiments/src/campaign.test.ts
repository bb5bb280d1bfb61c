import { describe, expect, it } from 'vitest';
import { campaignProgress, MAX_RUNS_PER_CAMPAIGN, planCampaign } from './campaign.js';

describe('planCampaign', () => {
  it('applies the parameters to a built-in scenario, one variant per codec', () => {
    const plan = planCampaign('bw-steps', {
      timeScale: 0.25,
      repetitions: 3,
      codecs: ['VP8', 'VP9'],
      video: { width: 640, height: 360, fps: 30 },
    });
    if (!plan.ok) throw new Error(plan.error.message);
    expect(plan.value.repetitions).toBe(3);
    expect(plan.value.variants.map((v) => v.label)).toEqual(['codec VP8', 'codec VP9']);
    expect(plan.value.variants[1]!.scenario.participants).toMatchObject({ codec: 'VP9', video: { width: 640, height: 360 } });
    expect(plan.value.variants[0]!.scenario.timeScale).toBe(0.25);
    expect(plan.value.scenario.timeScale).toBe(1);
  });

  it('runs a scenario file as set when no parameter is given', () => {
    const file = {
      id: 'mine',
      title: 'Mine',
      participants: { count: 2, topology: 'pair', video: { width: 320, height: 180, fps: 15 } },
      links: { mode: 'shared', bottleneck: { rateKbps: 800 } },
      durationS: 30,
    };
    const plan = planCampaign(file);
    if (!plan.ok) throw new Error(plan.error.message);
    expect(plan.value.variants).toHaveLength(1);
    expect(plan.value.variants[0]!.label).toBe('as set');
    expect(plan.value.repetitions).toBe(1);
  });

  it("puts participants in the browsers asked for, the picture they send too, and says so in the campaign's name", () => {
    const plan = planCampaign('bw-steps', {
      browsers: ['firefox', 'chromium'],
      video: { width: 640, height: 360, fps: 30, source: 'canvas' },
    });
    if (!plan.ok) throw new Error(plan.error.message);
    expect(plan.value.variants[0]!.scenario.participants).toMatchObject({ browsers: ['firefox', 'chromium'], video: { source: 'canvas' } });
    expect(plan.value.name).toBe('Bandwidth changing every minute, Firefox–Chromium');
    expect(planCampaign('bw-steps', { browsers: ['firefox', 'chromium', 'firefox'] })).toMatchObject({
      ok: false,
      error: { field: 'parameters (participants.browsers)' },
    });
  });

  it('names the field of a broken scenario file or parameter', () => {
    expect(planCampaign('no-such-scenario')).toMatchObject({ ok: false, error: { field: 'scenario' } });
    expect(planCampaign({ id: 'x', title: 'x' })).toMatchObject({ ok: false, error: { field: expect.stringMatching(/^scenario\./) } });
    expect(planCampaign('static-bw', { repetitions: MAX_RUNS_PER_CAMPAIGN, codecs: ['VP8', 'H264'] })).toMatchObject({
      ok: false,
      error: { field: 'parameters' },
    });
  });

  it('names campaigns apart by time scale and codecs', () => {
    const named = (p: Parameters<typeof planCampaign>[1]) => {
      const plan = planCampaign('bw-steps', p);
      if (!plan.ok) throw new Error(plan.error.message);
      return plan.value.name;
    };
    expect(named({})).toBe('Bandwidth changing every minute');
    expect(named({ timeScale: 0.25 })).toBe('Bandwidth changing every minute, time ×0.25');
    expect(named({ timeScale: 0.5, codecs: ['VP8', 'VP9'] })).toBe('Bandwidth changing every minute, time ×0.5, VP8/VP9');
  });
});

describe('campaignProgress', () => {
  it('counts finished runs whole and a running run by its fraction', () => {
    expect(campaignProgress([])).toBe(0);
    expect(campaignProgress([{ status: 'running', progress: 0.93 }])).toBeCloseTo(0.93);
    expect(
      campaignProgress([
        { status: 'done', progress: 1 },
        { status: 'running', progress: 0.5 },
        { status: 'queued', progress: 0 },
        { status: 'failed', progress: 0.2 },
      ]),
    ).toBeCloseTo(2.5 / 4);
  });
});
