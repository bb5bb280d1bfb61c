import type { CalibrationHeardWindow, CalibrationLatest, CalibrationWindow } from '@rtcscope/protocol';
import { type Agreement, agreementTable, CLEAN_FAMILY, PESQ, type Reference, VISQOL, VMAF } from '@rtcscope/reference-quality';
import { useCallback, useMemo } from 'react';
import { Link } from 'react-router';
import { CartesianGrid, Legend, ResponsiveContainer, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from 'recharts';
import { Empty, ErrorBox, Loading } from '../components/Status.js';
import { apiGet } from '../lib/api.js';
import { PALETTE } from '../lib/calldata.js';
import { formatDateTime, formatNumber, timeZone } from '../lib/format.js';
import { useLoad, useUrlFilter } from '../lib/hooks.js';

const ALL = 'all';

/** What a score is judged against in one table: the full-reference measure, how it is said, and under what range it did not move. */
interface Measure<W> {
  reference: Reference<W>;
  name: string;
  /** How the error's scale is made. */
  onScale: string;
  second: string | null;
  digits: number;
  /** The agreement docs/scores.md sets as its target: overall, and the least any family may show. */
  target: { overall: number; family: number };
  /**
   * A range under which a set of windows did not move: a few VMAF points are one content's noise (a
   * viewer tells ~6 apart); PESQ's repeatability on one condition is about a tenth of a point either way.
   */
  flat: number;
  testId: string;
}

const VIDEO: Measure<CalibrationWindow> = {
  reference: VMAF,
  name: 'VMAF',
  onScale: 'VMAF put on 1–5 (1 + 4·VMAF/100)',
  second: 'SSIM',
  target: { overall: 0.85, family: 0.7 },
  digits: 0,
  flat: 10,
  testId: 'calibration-agreement',
};
const AUDIO_PESQ: Measure<CalibrationHeardWindow> = {
  reference: PESQ,
  name: 'PESQ',
  onScale: 'PESQ as it stands (wideband MOS-LQO, 1.04–4.64)',
  second: null,
  target: { overall: 0.8, family: 0.7 },
  digits: 2,
  flat: 0.5,
  testId: 'calibration-audio-agreement',
};
/** Runs from 2026-12-07 measured ViSQOL too: the listening reference built for speech a jitter buffer stretches, PESQ ranked beside it. */
const AUDIO_VISQOL: Measure<CalibrationHeardWindow> = {
  ...AUDIO_PESQ,
  reference: VISQOL,
  name: 'ViSQOL',
  onScale: 'ViSQOL as it stands (speech MOS-LQO, 1–5)',
  second: 'PESQ',
};

/** Which call a window was of: its interval is drawn by whole calls, whose windows share a network and an encoder. */
const callOf = (w: CalibrationWindow | CalibrationHeardWindow) => `${w.setup ?? ''}|${w.content}|${w.case}|${w.run ?? 1}`;

/** The measures the video score is drawn against, each on its own axis. */
const VIDEO_PLOTS: Omit<PlotProps<CalibrationWindow>, 'windows' | 'families' | 'scoreLabel'>[] = [
  { title: 'Score against VMAF', xLabel: 'VMAF (vmaf_v0.6.1), 0–100', xDomain: [0, 100], x: (w) => w.vmaf, testId: 'calibration-vmaf' },
  { title: 'Score against SSIM', xLabel: 'SSIM, 0–1', xDomain: [0, 1], x: (w) => w.ssim, testId: 'calibration-ssim' },
];

/**
 * How good is the score: the project's latest calibration run (bench:quality, docs/scores.md), each 5-s
 * window of a lab call with the video score rtcscope gave it against what the viewer was measured to see
 * (VMAF, SSIM), and the audio score against what the listener was measured to hear (PESQ) — the figures a
 * buyer can check rather than take on trust.
 */
export function ScoreCalibration() {
  const fetchLatest = useCallback(() => apiGet<CalibrationLatest>('/score-calibrations/latest'), []);
  const { data, error, reload } = useLoad(fetchLatest);
  const [content, setContent] = useUrlFilter('content', ALL);
  const [setup, setSetup] = useUrlFilter('setup', ALL);
  const run = data?.calibration ?? null;
  const contents = useMemo(() => [...new Set(run?.windows.map((w) => w.content) ?? [])], [run]);
  const setups = useMemo(() => [...new Set(run?.windows.flatMap((w) => (w.setup ? [w.setup] : [])) ?? [])], [run]);
  const picked = useCallback(
    (w: CalibrationWindow | CalibrationHeardWindow) => (content === ALL || w.content === content) && (setup === ALL || w.setup === setup),
    [content, setup],
  );
  const windows = useMemo(() => run?.windows.filter(picked) ?? [], [run, picked]);
  const heard = useMemo(() => run?.heard.filter(picked) ?? [], [run, picked]);
  const families = useMemo(() => [...new Set([...windows, ...heard].map((w) => w.family))], [windows, heard]);
  const audio = heard.some((w) => w.visqol !== undefined && w.visqol !== null) ? AUDIO_VISQOL : AUDIO_PESQ;
  const allLabel = [content === ALL ? 'all' : `all ${content}`, 'windows', setup === ALL ? '' : `in ${setup}`].join(' ').trim();
  return (
    <main>
      <div className="toolbar">
        <h1>How good is the score</h1>
        {run && <Filter label="Content" value={content} options={contents} onChange={setContent} testId="calibration-content" />}
        {run && <Filter label="Setup" value={setup} options={setups} onChange={setSetup} testId="calibration-setup-filter" />}
      </div>
      <p className="muted">
        Each point is 5 seconds of a lab call: the video score rtcscope gave it (what the call page shows) against how good the picture the
        receiving browser showed really was, measured frame by frame against the clip that was sent (VMAF and SSIM, freezes counted as the
        frame held); and the audio score against how good what the receiving browser played was, measured against the speech that was sent
        (ViSQOL, which hears a jitter buffer's stretching as listeners do, and PESQ beside it). The method and the published run are in
        docs/scores.md.
      </p>
      {error && <ErrorBox error={error} onRetry={() => void reload()} />}
      {!data && !error && <Loading what="the latest calibration run" />}
      {data && !run && (
        <Empty>
          <p>
            <b>No calibration run in this project yet.</b> This page shows how well rtcscope's scores agree with what people saw and heard,
            from a run of lab calls stored here: each call's received picture measured against the clip that was sent (VMAF, SSIM) and its
            played audio against the speech (PESQ), beside the scores the call pages show.
          </p>
          <p>
            The published run — its figures, plots and what they mean for a score you read — is in docs/scores.md ("Figures"). To make one
            of your own on your lab agent's machine (about an hour of calls) and store it here:
          </p>
          <pre>
            BENCH_QUALITY_UPLOAD={window.location.origin} BENCH_QUALITY_KEY=&lt;an API key with the lab scope&gt; pnpm bench:quality
          </pre>
          <p className="muted">
            <code>BENCH_QUALITY_FROM=…/windows.json</code> stores a run already made; API keys are on the <Link to="/project">Project</Link>{' '}
            page.
          </p>
        </Empty>
      )}
      {run && (
        <>
          <p data-testid="calibration-setup">
            Run stored {formatDateTime(run.createdAt)} ({timeZone}): {run.windows.length} windows of {run.setup.callS}-s calls,{' '}
            {setups.length > 1
              ? `in ${setups.length} setups (${setups.join('; ')}), sent from ${run.setup.sender} at ${run.setup.fps} fps,`
              : `${run.setup.codec} ${run.setup.width}×${run.setup.height} at ${run.setup.fps} fps from ${run.setup.sender} to ${run.setup.receiver},`}{' '}
            on {contents.join(', ')}. Scored by the model {run.setup.scoreModel}. Spearman's 95 % interval is drawn by resampling whole
            calls.
          </p>
          <h2>Video</h2>
          <AgreementTable windows={windows} measure={VIDEO} allLabel={allLabel} />
          <div className="charts">
            {VIDEO_PLOTS.map((plot) => (
              <CalibrationPlot key={plot.testId} {...plot} windows={windows} families={families} scoreLabel="rtcscope video score, 1–5" />
            ))}
          </div>
          <h2>Audio</h2>
          {run.heard.length ? (
            <>
              <p className="muted">
                {audio.name} is a listening test: it cannot hear delay, which the audio score (the E-model) charges a conversation for.
                Where the delay family ranks badly, that is why.
              </p>
              <AgreementTable windows={heard} measure={audio} allLabel={allLabel} />
              <div className="charts">
                {audio === AUDIO_VISQOL && (
                  <CalibrationPlot
                    title="Score against ViSQOL"
                    xLabel="ViSQOL v3, speech MOS-LQO"
                    xDomain={[1, 5]}
                    x={(w) => w.visqol ?? null}
                    testId="calibration-visqol"
                    windows={heard}
                    families={families}
                    scoreLabel="rtcscope audio score, 1–5"
                  />
                )}
                <CalibrationPlot
                  title="Score against PESQ"
                  xLabel="PESQ, wideband MOS-LQO"
                  xDomain={[1, 5]}
                  x={(w) => w.pesq}
                  testId="calibration-pesq"
                  windows={heard}
                  families={families}
                  scoreLabel="rtcscope audio score, 1–5"
                />
              </div>
            </>
          ) : (
            <Empty>This run measured no audio (a run from before bench:quality recorded what was heard).</Empty>
          )}
        </>
      )}
    </main>
  );
}

const rho = (v: number | null) => formatNumber(v, '', 2);
/** An interval's ends, as figures with no unit. */
const ends = (r: [number, number]) => r.map((v) => v.toFixed(2)).join(', ');

/** A choice among a run's values (its contents, its setups), shown only where there is a choice. */
function Filter({
  label,
  value,
  options,
  onChange,
  testId,
}: {
  label: string;
  value: string;
  options: readonly string[];
  onChange: (v: string) => void;
  testId: string;
}) {
  if (options.length < 2) return null;
  return (
    <label>
      {label}{' '}
      <select value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
        <option value={ALL}>all</option>
        {options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
    </label>
  );
}
const span = (r: [number, number] | null, digits: number) => (r ? `${r[0].toFixed(digits)}–${r[1].toFixed(digits)}` : '–');

function AgreementTable<W extends CalibrationWindow | CalibrationHeardWindow>({
  windows,
  measure,
  allLabel,
}: {
  windows: readonly W[];
  measure: Measure<W>;
  allLabel: string;
}) {
  const rows = useMemo(() => agreementTable(windows, measure.reference, undefined, { call: callOf }), [windows, measure]);
  const meets = (over: string, a: Agreement) => {
    const target = over === 'all' ? measure.target.overall : over === 'family' ? measure.target.family : null;
    if (target === null || a.spearman === null) return null;
    // Where what was measured hardly moved, a correlation ranks noise: say so rather than pass or fail it.
    if (a.referenceRange && a.referenceRange[1] - a.referenceRange[0] < measure.flat) return `${measure.name} flat: nothing to rank`;
    return a.spearman >= target ? `meets ≥ ${target}` : `under ${target}`;
  };
  return (
    <table className="calls" data-testid={measure.testId}>
      <thead>
        <tr>
          <th>Windows</th>
          <th>n</th>
          <th title={`rank correlation of the score with ${measure.name}: 1 when the score orders the windows as ${measure.name} does`}>
            Spearman vs {measure.name}
          </th>
          <th>Pearson vs {measure.name}</th>
          <th title={`mean absolute error against ${measure.onScale}`}>Error (points of 5)</th>
          {measure.second && <th>Spearman vs {measure.second}</th>}
          <th>Score range</th>
          <th>{measure.name} range</th>
          <th>Target</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ over, name, agreement: a }) => {
          const verdict = meets(over, a);
          return (
            <tr key={`${over}:${name}`} data-testid="calibration-row">
              <td>{over === 'family' ? `${name} (with the ${CLEAN_FAMILY} calls)` : over === 'content' ? `${name} only` : allLabel}</td>
              <td>{a.n}</td>
              <td>
                {rho(a.spearman)}
                {a.spearmanInterval && <span className="muted"> [{ends(a.spearmanInterval)}]</span>}
              </td>
              <td>{rho(a.pearson)}</td>
              <td>{formatNumber(a.mae, '', 2)}</td>
              {measure.second && <td>{rho(a.secondSpearman)}</td>}
              <td>{span(a.scoreRange, 2)}</td>
              <td>{span(a.referenceRange, measure.digits)}</td>
              <td className={verdict?.startsWith('under') ? 'quality poor' : verdict?.startsWith('meets') ? 'quality good' : 'muted'}>
                {verdict ?? '–'}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

interface PlotProps<W> {
  title: string;
  xLabel: string;
  xDomain: [number, number];
  x: (w: W) => number | null;
  windows: readonly W[];
  families: readonly string[];
  scoreLabel: string;
  testId: string;
}

/** One point per window, a colour per impairment family (the same colour in every plot of the page). */
function CalibrationPlot<W extends CalibrationWindow | CalibrationHeardWindow>({
  title,
  xLabel,
  xDomain,
  x,
  windows,
  families,
  scoreLabel,
  testId,
}: PlotProps<W>) {
  const series = families.map((family, k) => ({
    colour: PALETTE[k % PALETTE.length],
    family,
    points: windows
      .filter((w) => w.family === family && x(w) !== null)
      .map((w) => ({ x: x(w)!, score: w.score, label: `${w.content}, ${w.case}` })),
  }));
  return (
    <section className="panel" data-testid={testId}>
      <h2>
        {title} <span className="unit">(per 5-s window)</span>
      </h2>
      <ResponsiveContainer width="100%" height={340}>
        <ScatterChart margin={{ top: 8, right: 16, bottom: 16, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" />
          <XAxis
            dataKey="x"
            type="number"
            domain={xDomain}
            allowDataOverflow
            name={xLabel}
            label={{ value: xLabel, position: 'insideBottom', offset: -8, style: { fill: '#6b7280', fontSize: 12 } }}
          />
          <YAxis
            dataKey="score"
            type="number"
            domain={[1, 5]}
            name="score"
            label={{ value: scoreLabel, angle: -90, position: 'insideLeft', style: { fill: '#6b7280', fontSize: 12 } }}
          />
          <Tooltip
            cursor={{ strokeDasharray: '3 3' }}
            formatter={(v, name) => [Number(v).toFixed(2), String(name)]}
            labelFormatter={() => ''}
          />
          <Legend verticalAlign="top" />
          {series.map((s) => (
            <Scatter key={s.family} name={s.family} data={s.points} fill={s.colour} isAnimationActive={false} />
          ))}
        </ScatterChart>
      </ResponsiveContainer>
    </section>
  );
}
