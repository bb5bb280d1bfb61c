import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findScenario } from './library.js';
import { Scenario } from './schema.js';
import { parseScenario } from './validate.js';

const minimal = {
  id: 'mine',
  title: 'Mine',
  participants: { count: 2, topology: 'pair', video: { width: 640, height: 360, fps: 30 } },
  links: { mode: 'per-participant', uplink: {}, downlink: {} },
  durationS: 60,
};

const errorOf = (input: unknown) => {
  const r = parseScenario(input);
  return r.ok ? null : r.error;
};

describe('parseScenario', () => {
  it('accepts a minimal file and fills the defaults', () => {
    const r = parseScenario(JSON.stringify(minimal));
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value).toMatchObject({ repetitions: 1, timeScale: 1, schedule: [], participants: { codec: 'VP8' } });
  });

  it('says when a file is neither JSON nor YAML, and where', () => {
    expect(errorOf('{ id: ')).toMatchObject({ field: '(file)', message: expect.stringMatching(/^not valid JSON or YAML: .*line 1/) });
    expect(errorOf('id: a\nid: b\n')).toMatchObject({ field: '(file)', message: expect.stringContaining('unique') });
  });

  it('reads YAML as it reads JSON', () => {
    const yaml = [
      'id: mine',
      'title: Mine',
      'participants: { count: 2, topology: pair, video: { width: 640, height: 360, fps: 30 } }',
      'links:',
      '  mode: shared',
      '  bottleneck: { rateKbps: 1000 }',
      'durationS: 60',
      'schedule:',
      '  - at: 30',
      '    set: { rateKbps: 500 }',
    ].join('\n');
    const r = parseScenario(yaml);
    expect(r.ok && r.value.schedule).toEqual([{ at: 30, set: { rateKbps: 500 } }]);
    expect(errorOf(yaml.replace('at: 30', 'at: 90'))).toMatchObject({ field: 'schedule[0].at' });
  });

  it('names the field of a shape error', () => {
    expect(errorOf({ ...minimal, participants: { ...minimal.participants, codec: 'H265' } })?.field).toBe('participants.codec');
    expect(errorOf({ ...minimal, durationS: -1 })?.field).toBe('durationS');
    expect(errorOf({ ...minimal, extra: 1 })?.field).toBe('extra');
  });

  it('refuses changes after the end and ramps that end before they start', () => {
    expect(errorOf({ ...minimal, schedule: [{ at: 90, set: { rateKbps: 500 } }] })).toMatchObject({ field: 'schedule[0].at' });
    expect(
      errorOf({ ...minimal, schedule: [{ at: 10, until: 5, ramp: { param: 'delayMs', from: 0, to: 100, shape: 'linear' } }] }),
    ).toMatchObject({
      field: 'schedule[0].until',
    });
  });

  it("refuses ramp values past their param's bound and ramps that would change the links without end", () => {
    const ramp = (r: Record<string, unknown>, until = 60) => ({
      ...minimal,
      schedule: [{ at: 0, until, ramp: { param: 'delayMs', from: 0, to: 100, shape: 'linear', ...r } }],
    });
    expect(errorOf(ramp({ to: 1e308 }))?.field).toMatch(/^schedule\[0\]/);
    expect(errorOf(ramp({ to: 20_000 }))).toMatchObject({ field: 'schedule[0].ramp', message: 'a delayMs ramp stays within 0..10000' });
    expect(errorOf(ramp({ param: 'lossPct', to: 150 }))).toMatchObject({
      field: 'schedule[0].ramp',
      message: 'a lossPct ramp stays within 0..100',
    });
    const day = { ...ramp({ everyS: 0.1 }, 86_400), durationS: 86_400 };
    expect(errorOf(day)).toMatchObject({
      field: 'schedule[0].ramp.everyS',
      message: expect.stringMatching(/more than 20000 times in all/),
    });
    expect(errorOf({ ...ramp({ everyS: 5 }, 86_400), durationS: 86_400 })).toBeNull();
  });

  it('refuses targets the link mode does not have', () => {
    expect(errorOf({ ...minimal, schedule: [{ at: 1, on: 'bottleneck', set: { delayMs: 5 } }] })).toMatchObject({
      field: 'schedule[0].on',
    });
    const shared = structuredClone(findScenario('rtp-fairness')!);
    expect(errorOf({ ...shared, schedule: [{ at: 1, on: 'uplink', set: { delayMs: 5 } }] })).toMatchObject({ field: 'schedule[0].on' });
    expect(errorOf({ ...minimal, crossTraffic: [{ kind: 'tcp', at: 5 }] })).toMatchObject({ field: 'crossTraffic[0].kind' });
  });

  it('takes what participants do (mute, camera off, and back) and refuses who is not there, too late a time, or a camera in an audio-only call', () => {
    const actions = [
      { at: 10, participant: 1, do: 'mute' },
      { at: 12, participant: 0, do: 'camera-off' },
      { at: 20, participant: 0, do: 'camera-on' },
    ];
    expect(parseScenario({ ...minimal, actions })).toMatchObject({ ok: true, value: { actions } });
    expect(errorOf({ ...minimal, actions: [{ at: 10, participant: 2, do: 'mute' }] })).toMatchObject({
      field: 'actions[0].participant',
      message: 'there are 2 participants (0..1)',
    });
    expect(errorOf({ ...minimal, actions: [{ at: 61, participant: 0, do: 'mute' }] })).toMatchObject({ field: 'actions[0].at' });
    expect(errorOf({ ...minimal, actions: [{ at: 5, participant: 0, do: 'leave' }] })).toMatchObject({ field: 'actions[0].do' });
    const audioOnly = { ...minimal, participants: { ...minimal.participants, audioOnly: true } };
    expect(errorOf({ ...audioOnly, actions: [{ at: 5, participant: 0, do: 'camera-off' }] })).toMatchObject({ field: 'actions[0].do' });
    expect(parseScenario({ ...audioOnly, actions: [{ at: 5, participant: 0, do: 'mute' }] }).ok).toBe(true);
  });

  it('takes viewers who send nothing (between peers, through Janus or LiveKit), and refuses one who is not there, a call with no one sending, and a viewer muting', () => {
    const watched = (viewers: unknown, more: object = {}) => ({ ...minimal, participants: { ...minimal.participants, viewers, ...more } });
    expect(parseScenario(watched([1]))).toMatchObject({ ok: true, value: { participants: { viewers: [1] } } });
    expect(errorOf(watched([2]))).toEqual({ field: 'participants.viewers[0]', message: 'there are 2 participants (0..1)' });
    expect(errorOf(watched([0, 1]))).toEqual({
      field: 'participants.viewers',
      message: 'every participant only watches: leave at least one who sends',
    });
    expect(errorOf(watched([1, 1]))?.field).toBe('participants.viewers');
    expect(parseScenario(watched([2], { count: 3, topology: 'sfu' })).ok).toBe(true);
    expect(parseScenario(watched([2], { count: 3, topology: 'sfu', sfu: 'livekit' })).ok).toBe(true);
    expect(errorOf({ ...watched([1]), actions: [{ at: 5, participant: 1, do: 'unmute' }] })).toEqual({
      field: 'actions[0].do',
      message: 'p1 only watches: it sends no microphone or camera to turn off or on',
    });
    expect(parseScenario({ ...watched([1]), actions: [{ at: 5, participant: 0, do: 'mute' }] }).ok).toBe(true);
  });

  it('refuses a participant index that does not exist and a pair of three', () => {
    expect(errorOf({ ...minimal, schedule: [{ at: 1, participant: 2, set: { delayMs: 5 } }] })).toMatchObject({
      field: 'schedule[0].participant',
    });
    expect(errorOf({ ...minimal, participants: { ...minimal.participants, count: 3 } })).toMatchObject({ field: 'participants.count' });
    expect(errorOf({ ...minimal, participants: { ...minimal.participants, browsers: ['firefox', 'chromium', 'firefox'] } })).toEqual({
      field: 'participants.browsers',
      message: 'names 3 browsers for 2 participants: give one per participant, p0 first',
    });
    expect(errorOf({ ...minimal, participants: { ...minimal.participants, browsers: ['firefox', 'safari'] } })?.field).toBe(
      'participants.browsers[1]',
    );
    expect(
      errorOf({
        ...minimal,
        participants: {
          ...minimal.participants,
          browsers: ['firefox', 'chromium'],
          video: { width: 640, height: 360, fps: 30, source: 'canvas' },
        },
      }),
    ).toBeNull();
  });

  it('gives a call through an SFU its own links and keeps them to such calls', () => {
    const sfu = { ...minimal, participants: { ...minimal.participants, count: 3, topology: 'sfu' } };
    expect(
      errorOf({ ...sfu, links: { ...minimal.links, sfu: { rateKbps: 5000 } }, schedule: [{ at: 1, on: 'sfu', set: { delayMs: 50 } }] }),
    ).toBeNull();
    expect(errorOf({ ...minimal, schedule: [{ at: 1, on: 'sfu', set: { delayMs: 50 } }] })).toMatchObject({
      field: 'schedule[0].on',
      message: expect.stringContaining('topology "sfu"'),
    });
    expect(errorOf({ ...minimal, links: { ...minimal.links, sfu: { delayMs: 5 } } })).toMatchObject({ field: 'links.sfu' });
    expect(errorOf({ ...sfu, schedule: [{ at: 1, on: 'sfu', participant: 1, set: { delayMs: 50 } }] })).toMatchObject({
      field: 'schedule[0].participant',
    });
    expect(errorOf({ ...sfu, links: { mode: 'shared', bottleneck: {} } })).toMatchObject({ field: 'links.mode' });
    expect(errorOf({ ...sfu, participants: { ...sfu.participants, sfu: 'livekit' } })).toBeNull();
    // LiveKit's reconnections are livekit-client's: through Janus or between peers there is none to make.
    const liveKit = { ...sfu, participants: { ...sfu.participants, sfu: 'livekit' } };
    const reconnections = [
      { at: 10, participant: 1, do: 'reconnect' },
      { at: 20, participant: 0, do: 'rejoin' },
    ];
    expect(errorOf({ ...liveKit, actions: reconnections })).toBeNull();
    for (const call of [sfu, minimal])
      expect(errorOf({ ...call, actions: reconnections })).toMatchObject({
        field: 'actions[0].do',
        message: expect.stringContaining('only in a call through LiveKit'),
      });
    expect(errorOf({ ...sfu, participants: { ...sfu.participants, sfu: 'mediasoup' } })).toMatchObject({ field: 'participants.sfu' });
    expect(errorOf({ ...minimal, participants: { ...minimal.participants, sfu: 'livekit' } })).toMatchObject({
      field: 'participants.sfu',
      message: expect.stringContaining('topology "sfu"'),
    });
    // Opus DTX is negotiated between peers; an SFU's room decides it for its own.
    expect(errorOf({ ...minimal, participants: { ...minimal.participants, opusDtx: true } })).toBeNull();
    expect(errorOf({ ...sfu, participants: { ...sfu.participants, opusDtx: true } })).toMatchObject({
      field: 'participants.opusDtx',
      message: expect.stringContaining("SFU's room"),
    });
  });

  it('takes one CPU limit per participant, in cores', () => {
    const cpu = (limits: unknown) => errorOf({ ...minimal, participants: { ...minimal.participants, cpu: limits } });
    expect(cpu([null, 0.25])).toBeNull();
    expect(cpu([0.25, null, 1])).toEqual({
      field: 'participants.cpu',
      message: 'gives 3 CPU limits for 2 participants: give one per participant (null: unlimited), p0 first',
    });
    expect(cpu([0, null])?.field).toBe('participants.cpu[0]');
  });

  it('varies the frame rate of drawn sources only', () => {
    const video = (v: object) => ({
      ...minimal,
      participants: { ...minimal.participants, video: { width: 640, height: 360, fps: 24, fpsVaries: true, ...v } },
    });
    expect(errorOf(video({ source: 'screen' }))).toBeNull();
    expect(errorOf(video({}))).toMatchObject({
      field: 'participants.video.fpsVaries',
      message: expect.stringContaining('fake camera plays at one rate'),
    });
  });
});

describe('the published JSON Schema', () => {
  it('is the schema the code validates with (regenerate: pnpm --silent lab schema > docs/scenario.schema.json)', () => {
    const published = JSON.parse(readFileSync(new URL('../../../docs/scenario.schema.json', import.meta.url), 'utf8'));
    expect(published).toEqual(JSON.parse(JSON.stringify(Scenario)));
  });
});
