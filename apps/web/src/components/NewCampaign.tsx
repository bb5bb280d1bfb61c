import { type CampaignDetail, type CampaignParameters, planCampaign } from '@rtcscope/experiments';
import { LIBRARY, type ParticipantBrowser, parseScenario, type Scenario, timeScaleWarnings } from '@rtcscope/scenario';
import { useMemo, useState } from 'react';
import { apiSend } from '../lib/api.js';
import { formatDuration } from '../lib/format.js';
import { useSubmit } from '../lib/hooks.js';

const CODECS = ['VP8', 'VP9', 'H264', 'AV1'] as const;
const VIDEOS = {
  '': '',
  '320x180@15': '320×180 at 15 fps',
  '640x360@30': '640×360 at 30 fps',
  '1280x720@30': '1280×720 at 30 fps',
} as const;

/** A scenario's video as a person reads it. */
const videoName = (v: Scenario['participants']['video']) => `${v.width}×${v.height} at ${v.fps} fps`;

/** Choose a built-in scenario or upload one, set its parameters, see what it will run, start it. */
export function NewCampaign({ onStarted }: { onStarted: (c: CampaignDetail) => void }) {
  const [builtIn, setBuiltIn] = useState('bw-steps');
  const [uploaded, setUploaded] = useState<{ name: string; scenario: Scenario } | null>(null);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const [timeScale, setTimeScale] = useState('0.25');
  const [repetitions, setRepetitions] = useState('1');
  // The scenario's own media unless a person picks other: sfu-3 at 30 fps instead of its 15 overloads this kind of host.
  const [video, setVideo] = useState<keyof typeof VIDEOS>('');
  const [maxBitrate, setMaxBitrate] = useState('');
  const [codecs, setCodecs] = useState<string[]>([]);
  const [picture, setPicture] = useState<'' | 'camera' | 'canvas'>('');
  const [browsers, setBrowsers] = useState<Record<number, ParticipantBrowser>>({});
  const [name, setName] = useState('');

  const ref = uploaded?.scenario ?? builtIn;
  const scenarioAsSet = useMemo(() => {
    const r = planCampaign(ref);
    return r.ok ? r.value.scenario : null;
  }, [ref]);
  const count = scenarioAsSet?.participants.count ?? 0;
  const chosenBrowsers = useMemo(
    () => Array.from({ length: count }, (_, k) => browsers[k] ?? scenarioAsSet?.participants.browsers?.[k] ?? 'chromium'),
    [count, browsers, scenarioAsSet],
  );

  const parameters = useMemo((): CampaignParameters => {
    const p: CampaignParameters = {};
    if (timeScale.trim()) p.timeScale = Number(timeScale);
    if (repetitions.trim()) p.repetitions = Number(repetitions);
    const m = /^(\d+)x(\d+)@(\d+)$/.exec(video);
    if (m) p.video = { width: Number(m[1]), height: Number(m[2]), fps: Number(m[3]) };
    const video0 = p.video ?? scenarioAsSet?.participants.video;
    if (picture && video0) p.video = { ...video0, source: picture };
    if (maxBitrate.trim()) p.maxBitrateKbps = Number(maxBitrate);
    if (codecs.length) p.codecs = codecs as CampaignParameters['codecs'];
    if (chosenBrowsers.some((b) => b !== 'chromium')) p.browsers = chosenBrowsers;
    return p;
  }, [timeScale, repetitions, video, maxBitrate, codecs, picture, chosenBrowsers, scenarioAsSet]);

  const plan = useMemo(() => planCampaign(ref, parameters), [ref, parameters]);
  const base = plan.ok ? plan.value.scenario : null;
  const warnings = plan.ok ? timeScaleWarnings(plan.value.variants[0]!.scenario) : [];

  const upload = async (file: File | undefined) => {
    if (!file) return setUploaded(null);
    const parsed = parseScenario(await file.text());
    if (!parsed.ok) {
      setUploaded(null);
      setUploadError(`${file.name}: ${parsed.error.field}: ${parsed.error.message}`);
      return;
    }
    setUploadError(null);
    setUploaded({ name: file.name, scenario: parsed.value });
  };

  const {
    submit,
    busy: sending,
    error,
  } = useSubmit(async () => {
    if (plan.ok)
      onStarted(
        await apiSend<CampaignDetail>('POST', '/lab/campaigns', {
          scenario: ref,
          parameters,
          ...(name.trim() ? { name: name.trim() } : {}),
        }),
      );
  });

  const runs = plan.ok ? plan.value.variants.length * plan.value.repetitions : 0;
  const runS = plan.ok ? plan.value.variants[0]!.scenario.durationS * plan.value.variants[0]!.scenario.timeScale : 0;

  return (
    <section className="panel">
      <h2>New campaign</h2>
      <form className="campaign-form" onSubmit={submit} data-testid="new-campaign">
        <label>
          Scenario
          <select value={builtIn} onChange={(e) => setBuiltIn(e.target.value)} disabled={uploaded !== null} data-testid="scenario-select">
            {LIBRARY.map((s) => (
              <option key={s.id} value={s.id}>
                {s.id} — {s.title}
              </option>
            ))}
          </select>
        </label>
        <label>
          …or upload a scenario file (JSON or YAML)
          <input
            type="file"
            accept=".json,.yaml,.yml,application/json,application/yaml"
            onChange={(e) => void upload(e.target.files?.[0])}
          />
        </label>
        {uploadError && (
          <p className="error-text" role="alert">
            {uploadError}
          </p>
        )}
        {base && (
          <p className="muted">
            {base.description ?? base.title} {base.source && <>Source: {base.source}.</>} {formatDuration(base.durationS * 1000)} at full
            length.
          </p>
        )}
        <div className="fields">
          <label>
            Time scale
            <input
              type="number"
              min="0.01"
              max="1"
              step="0.01"
              value={timeScale}
              onChange={(e) => setTimeScale(e.target.value)}
              title="multiplies every time of the scenario; 1 = as in the paper"
            />
          </label>
          <label>
            Repetitions
            <input type="number" min="1" max="100" step="1" value={repetitions} onChange={(e) => setRepetitions(e.target.value)} />
          </label>
          <label>
            Video source
            <select value={video} onChange={(e) => setVideo(e.target.value as keyof typeof VIDEOS)}>
              {Object.entries(VIDEOS).map(([v, label]) => (
                <option key={v} value={v}>
                  {v === '' ? `the scenario's${scenarioAsSet ? ` (${videoName(scenarioAsSet.participants.video)})` : ''}` : label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Picture
            <select value={picture} onChange={(e) => setPicture(e.target.value as typeof picture)} data-testid="picture-select">
              <option value="">the scenario's</option>
              <option value="camera">each browser's fake camera</option>
              <option value="canvas">a drawn animation, the same in every browser</option>
            </select>
          </label>
          <fieldset>
            <legend>Browsers</legend>
            {chosenBrowsers.map((b, k) => (
              <label key={k}>
                p{k}{' '}
                <select
                  value={b}
                  onChange={(e) => setBrowsers((bs) => ({ ...bs, [k]: e.target.value as ParticipantBrowser }))}
                  data-testid={`browser-p${k}`}
                >
                  <option value="chromium">Chromium</option>
                  <option value="firefox">Firefox</option>
                </select>
              </label>
            ))}
          </fieldset>
          <label>
            Max bitrate (kbit/s)
            <input
              type="number"
              min="30"
              max="50000"
              value={maxBitrate}
              onChange={(e) => setMaxBitrate(e.target.value)}
              placeholder="scenario's"
            />
          </label>
          <fieldset>
            <legend>Codecs (one variant each; none = the scenario's)</legend>
            {CODECS.map((c) => (
              <label key={c} className="check">
                <input
                  type="checkbox"
                  checked={codecs.includes(c)}
                  onChange={() => setCodecs((cs) => (cs.includes(c) ? cs.filter((x) => x !== c) : [...cs, c]))}
                />
                {c}
              </label>
            ))}
          </fieldset>
          <label className="wide">
            Name
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder={plan.ok ? plan.value.name : ''} maxLength={100} />
          </label>
        </div>
        {plan.ok ? (
          <p data-testid="campaign-plan">
            {runs} run{runs === 1 ? '' : 's'} ({plan.value.variants.map((v) => v.label).join(', ')} × {plan.value.repetitions}),{' '}
            {formatDuration(runS * 1000)} each, about {formatDuration(runs * (runS + 15) * 1000)} of agent time. Video{' '}
            {videoName(plan.value.variants[0]!.scenario.participants.video)}, {parameters.video ? 'as set here' : "the scenario's own"}.
          </p>
        ) : (
          <p className="error-text" role="alert">
            {plan.error.field}: {plan.error.message}
          </p>
        )}
        {plan.ok && chosenBrowsers.includes('firefox') && plan.value.variants[0]!.scenario.participants.video.source !== 'canvas' && (
          <p className="warning" role="note" data-testid="firefox-camera-warning">
            Firefox's fake camera is a plain pattern that stays near 260 kbit/s, well below what Chromium's sends: to compare the browsers'
            rates, choose the drawn animation as the picture.
          </p>
        )}
        {warnings.map((w) => (
          <p key={w} className="warning" role="note" data-testid="time-scale-warning">
            {w}
          </p>
        ))}
        <button type="submit" disabled={!plan.ok || sending}>
          {sending ? 'Starting…' : 'Start campaign'}
        </button>
        {uploaded && (
          <button type="button" className="link" onClick={() => setUploaded(null)}>
            use a built-in scenario instead of {uploaded.name}
          </button>
        )}
        {error && (
          <p className="error-text" role="alert">
            {error.message}
          </p>
        )}
      </form>
    </section>
  );
}
