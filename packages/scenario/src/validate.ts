import { type Checked, checker } from '@rtcscope/protocol';
import { Value } from '@sinclair/typebox/value';
import { parse as parseYaml } from 'yaml';
import { MAX_RAMP_CHANGES, PARAM_MAX, type Ramp, Scenario, type Step } from './schema.js';

const checkShape = checker(Scenario);

/**
 * Reads a scenario (JSON or YAML text, or a parsed object): fills defaults, checks the shape, then what the
 * shape cannot say (times inside the duration, targets that exist for the link mode). The first problem
 * comes back with the field it is in, e.g. `schedule[3].until`.
 */
export function parseScenario(input: unknown): Checked<Scenario> {
  let value = input;
  if (typeof input === 'string') {
    try {
      // YAML is a superset of JSON: one parser reads both, and its errors give the line and column.
      value = parseYaml(input, { uniqueKeys: true });
    } catch (err) {
      return { ok: false, error: { field: '(file)', message: `not valid JSON or YAML: ${(err as Error).message.split('\n')[0]}` } };
    }
  }
  const withDefaults = Value.Default(Scenario, structuredClone(value));
  const shape = checkShape(withDefaults);
  if (!shape.ok) return shape;
  const problem = semanticProblem(shape.value);
  return problem ? { ok: false, error: problem } : shape;
}

function semanticProblem(s: Scenario): { field: string; message: string } | null {
  const shared = s.links.mode === 'shared';
  if (s.participants.topology === 'pair' && s.participants.count !== 2) {
    return { field: 'participants.count', message: 'a pair has 2 participants; use topology "mesh" for more' };
  }
  const sfu = s.participants.topology === 'sfu';
  if (sfu && shared)
    return { field: 'links.mode', message: 'through an SFU each participant has its own links: set links.mode to "per-participant"' };
  if (sfu && s.participants.opusDtx)
    return {
      field: 'participants.opusDtx',
      message: "through an SFU its room decides DTX: set it in the SFU's room, or run the call as a pair or mesh",
    };
  if (!sfu && s.participants.sfu)
    return {
      field: 'participants.sfu',
      message: 'only a call of topology "sfu" goes through an SFU: drop participants.sfu or set the topology',
    };
  if (!sfu && s.links.mode === 'per-participant' && s.links.sfu)
    return { field: 'links.sfu', message: 'only a call through an SFU (topology "sfu") has the SFU\'s links' };
  const browsers = s.participants.browsers;
  if (browsers && browsers.length !== s.participants.count) {
    return {
      field: 'participants.browsers',
      message: `names ${browsers.length} browsers for ${s.participants.count} participants: give one per participant, p0 first`,
    };
  }
  const cpu = s.participants.cpu;
  if (cpu && cpu.length !== s.participants.count) {
    return {
      field: 'participants.cpu',
      message: `gives ${cpu.length} CPU limits for ${s.participants.count} participants: give one per participant (null: unlimited), p0 first`,
    };
  }
  const viewers = s.participants.viewers ?? [];
  for (const [k, v] of viewers.entries()) {
    if (v >= s.participants.count)
      return {
        field: `participants.viewers[${k}]`,
        message: `there are ${s.participants.count} participants (0..${s.participants.count - 1})`,
      };
  }
  if (viewers.length >= s.participants.count)
    return { field: 'participants.viewers', message: 'every participant only watches: leave at least one who sends' };
  const video = s.participants.video;
  if (video.fpsVaries && (video.source ?? 'camera') === 'camera') {
    return {
      field: 'participants.video.fpsVaries',
      message: 'a browser\'s fake camera plays at one rate: vary the rate of a drawn source ("canvas" or "screen")',
    };
  }
  let rampChanges = 0;
  for (const [k, change] of s.schedule.entries()) {
    const at = `schedule[${k}]`;
    if (change.at > s.durationS) return { field: `${at}.at`, message: `${change.at} s is after the end (${s.durationS} s)` };
    if (isRamp(change)) {
      if (change.until <= change.at) return { field: `${at}.until`, message: 'must be after "at"' };
      if (change.until > s.durationS) return { field: `${at}.until`, message: `${change.until} s is after the end (${s.durationS} s)` };
      if (change.ramp.param === 'rateKbps' && Math.min(change.ramp.from, change.ramp.to) < 8) {
        return { field: `${at}.ramp`, message: 'a rate ramp needs rates of at least 8 kbit/s' };
      }
      const max = PARAM_MAX[change.ramp.param];
      if (Math.max(change.ramp.from, change.ramp.to) > max)
        return { field: `${at}.ramp`, message: `a ${change.ramp.param} ramp stays within 0..${max}` };
      rampChanges += Math.ceil((change.until - change.at) / (change.ramp.everyS ?? 0.5));
      if (rampChanges > MAX_RAMP_CHANGES) {
        return {
          field: `${at}.ramp.everyS`,
          message: `the ramps would change the links more than ${MAX_RAMP_CHANGES} times in all: change them less often (a larger everyS)`,
        };
      }
    }
    const on = change.on ?? (shared ? 'bottleneck' : 'both');
    if (shared && on !== 'bottleneck') return { field: `${at}.on`, message: 'with a shared bottleneck, changes apply to "bottleneck"' };
    if (!shared && on === 'bottleneck')
      return {
        field: `${at}.on`,
        message: `these links are per participant: use "uplink", "downlink" or "both"${sfu ? ' (or "sfu")' : ''}`,
      };
    if (on === 'sfu' && !sfu) return { field: `${at}.on`, message: 'only a call through an SFU (topology "sfu") has the SFU\'s links' };
    if (on === 'sfu' && change.participant !== undefined)
      return { field: `${at}.participant`, message: 'the SFU\'s links are shared by every participant: leave "participant" out' };
    if (change.participant !== undefined) {
      if (shared) return { field: `${at}.participant`, message: 'a shared bottleneck has no per-participant links' };
      if (change.participant >= s.participants.count) {
        return { field: `${at}.participant`, message: `there are ${s.participants.count} participants (0..${s.participants.count - 1})` };
      }
    }
  }
  for (const [k, flow] of (s.crossTraffic ?? []).entries()) {
    const at = `crossTraffic[${k}]`;
    if (flow.at >= s.durationS) return { field: `${at}.at`, message: `${flow.at} s is not before the end (${s.durationS} s)` };
    if (flow.until !== undefined && (flow.until <= flow.at || flow.until > s.durationS)) {
      return { field: `${at}.until`, message: `must be after "at" and at most the duration (${s.durationS} s)` };
    }
    if (!shared) return { field: `${at}.kind`, message: 'cross traffic competes on a shared bottleneck: set links.mode to "shared"' };
  }
  for (const [k, action] of (s.actions ?? []).entries()) {
    const at = `actions[${k}]`;
    if (action.at > s.durationS) return { field: `${at}.at`, message: `${action.at} s is after the end (${s.durationS} s)` };
    if (action.participant >= s.participants.count)
      return { field: `${at}.participant`, message: `there are ${s.participants.count} participants (0..${s.participants.count - 1})` };
    if (action.do !== 'reconnect' && action.do !== 'rejoin' && viewers.includes(action.participant))
      return { field: `${at}.do`, message: `p${action.participant} only watches: it sends no microphone or camera to turn off or on` };
    if (action.do.startsWith('camera') && s.participants.audioOnly)
      return { field: `${at}.do`, message: 'the participants send audio only: there is no camera to turn off or on' };
    if ((action.do === 'reconnect' || action.do === 'rejoin') && s.participants.sfu !== 'livekit')
      return {
        field: `${at}.do`,
        message: `"${action.do}" is LiveKit's reconnection: only in a call through LiveKit (participants.sfu "livekit")`,
      };
  }
  return null;
}

export function isRamp(change: Step | Ramp): change is Ramp {
  return 'ramp' in change;
}
