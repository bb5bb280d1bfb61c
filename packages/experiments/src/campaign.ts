import type { Checked } from '@rtcscope/protocol';
import { findScenario, parseScenario, type Scenario } from '@rtcscope/scenario';
import type { CampaignParameters, RunInfo } from './api.js';

export interface CampaignPlan {
  scenario: Scenario;
  /** Each variant's label and the scenario it runs; every variant runs `repetitions` times. */
  variants: { label: string; scenario: Scenario }[];
  repetitions: number;
  /** What the campaign is called unless its creator names it: the scenario, its time scale, its codecs. */
  name: string;
}

/** More runs than this in one campaign is almost surely a typo (and hours of machine time). */
export const MAX_RUNS_PER_CAMPAIGN = 200;

/**
 * Turns a built-in id or a scenario file plus campaign parameters into the scenarios to run. Every
 * variant is validated whole, so a parameter that breaks the scenario is refused with its field named.
 */
export function planCampaign(ref: string | object, parameters: CampaignParameters = {}): Checked<CampaignPlan> {
  const base = typeof ref === 'string' ? findScenario(ref) : ref;
  if (!base) return { ok: false, error: { field: 'scenario', message: `"${String(ref)}" is not a built-in scenario id` } };
  const parsed = parseScenario(base);
  if (!parsed.ok) return { ok: false, error: { field: `scenario.${parsed.error.field}`, message: parsed.error.message } };
  const scenario = parsed.value;
  const common: Partial<Scenario> = {};
  if (parameters.timeScale !== undefined) common.timeScale = parameters.timeScale;
  const participants = { ...scenario.participants };
  if (parameters.video) participants.video = parameters.video;
  if (parameters.browsers) participants.browsers = parameters.browsers;
  if (parameters.maxBitrateKbps !== undefined) participants.maxBitrateKbps = parameters.maxBitrateKbps;
  const codecs = parameters.codecs ?? [null];
  const repetitions = parameters.repetitions ?? scenario.repetitions;
  if (codecs.length * repetitions > MAX_RUNS_PER_CAMPAIGN) {
    return {
      ok: false,
      error: { field: 'parameters', message: `${codecs.length * repetitions} runs; a campaign has at most ${MAX_RUNS_PER_CAMPAIGN}` },
    };
  }
  const variants: CampaignPlan['variants'] = [];
  for (const codec of codecs) {
    const checked = parseScenario({ ...scenario, ...common, repetitions, participants: { ...participants, ...(codec ? { codec } : {}) } });
    if (!checked.ok) return { ok: false, error: { field: `parameters (${checked.error.field})`, message: checked.error.message } };
    variants.push({ label: codec ? `codec ${codec}` : 'as set', scenario: checked.value });
  }
  return { ok: true, value: { scenario, variants, repetitions, name: campaignName(scenario, parameters) } };
}

/**
 * A default name that tells two campaigns of one scenario apart by what was changed: "Bandwidth
 * changing every minute, time ×0.25, VP8/VP9".
 */
function campaignName(scenario: Scenario, p: CampaignParameters): string {
  const scale = p.timeScale ?? scenario.timeScale;
  const browsers = p.browsers?.some((b) => b !== 'chromium')
    ? [p.browsers.map((b) => (b === 'firefox' ? 'Firefox' : 'Chromium')).join('–')]
    : [];
  return [scenario.title, ...(scale !== 1 ? [`time ×${scale}`] : []), ...(p.codecs ? [p.codecs.join('/')] : []), ...browsers]
    .join(', ')
    .slice(0, 100);
}

/** A campaign's progress: each finished run counts whole, a running one by its fraction, a queued one not at all. */
export function campaignProgress(runs: readonly Pick<RunInfo, 'status' | 'progress'>[]): number {
  if (!runs.length) return 0;
  const done = runs.reduce((sum, r) => sum + (r.status === 'running' ? r.progress : r.status === 'queued' ? 0 : 1), 0);
  return done / runs.length;
}
