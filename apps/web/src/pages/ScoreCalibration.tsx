import type { CalibrationLatest, CalibrationWindow } from '@rtcscope/protocol';
import { type Agreement, agreementTable, CLEAN_FAMILY } from '@rtcscope/reference-quality';
import { useCallback, useMemo } from 'react';
import { CartesianGrid, Legend, ResponsiveContainer, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from 'recharts';
import { Empty, ErrorBox, Loading } from '../components/Status.js';
import { apiGet } from '../lib/api.js';
import { PALETTE } from '../lib/calldata.js';
import { formatDateTime, formatNumber, timeZone } from '../lib/format.js';
import { useLoad, useUrlFilter } from '../lib/hooks.js';

/** The agreement docs/scores.md sets as the target: overall, and the least any family may show. */
const TARGET = { overall: 0.85, family: 0.7 };

const ALL = 'all';

/** VMAF points under which a set of windows did not move: a few points are one content's noise (a viewer tells ~6 apart). */
const FLAT_VMAF = 10;

/** The measures the score is drawn against, each on its own axis. */
const PLOTS: Omit<PlotProps, 'windows' | 'families'>[] = [
  { title: 'Score against VMAF', xLabel: 'VMAF (vmaf_v0.6.1), 0–100', xDomain: [0, 100], x: (w) => w.vmaf, testId: 'calibration-vmaf' },
  { title: 'Score against SSIM', xLabel: 'SSIM, 0–1', xDomain: [0, 1], x: (w) => w.ssim, testId: 'calibration-ssim' },
];

/**
 * How good is the score: the project's latest calibration run (bench:quality, docs/scores.md), each 5-s
 * window of a lab call with the video score rtcscope gave it against what the viewer was measured to see
 * (VMAF, SSIM) — the figures a buyer can check rather than take on trust.
 */
export function ScoreCalibration() {
  const fetchLatest = useCallback(() => apiGet<CalibrationLatest>('/score-calibrations/latest'), []);
  const { data, error, reload } = useLoad(fetchLatest);
  const [content, setContent] = useUrlFilter('content', ALL);
  const run = data?.calibration ?? null;
  const contents = useMemo(() => [...new Set(run?.windows.map((w) => w.content) ?? [])], [run]);
  const windows = useMemo(() => run?.windows.filter((w) => content === ALL || w.content === content) ?? [], [run, content]);
  const families = useMemo(() => [...new Set(windows.map((w) => w.family))], [windows]);
  return (
    <main>
      <div className="toolbar">
        <h1>How good is the score</h1>
        {run && contents.length > 1 && (
          <label>
            Content{' '}
            <select value={content} onChange={(e) => setContent(e.target.value)} data-testid="calibration-content">
              <option value={ALL}>all</option>
              {contents.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
          </label>
        )}
      </div>
      <p className="muted">
        Each point is 5 seconds of a lab call: the video score rtcscope gave it (what the call page shows) against how good the picture the
        receiving browser showed really was, measured frame by frame against the clip that was sent (VMAF and SSIM, freezes counted as the
        frame held). The method and the published run are in docs/scores.md.
      </p>
      {error && <ErrorBox error={error} onRetry={() => void reload()} />}
      {!data && !error && <Loading what="the latest calibration run" />}
      {data && !run && (
        <Empty>
          No calibration run in this project yet. Run the lab's campaign and store it here:{' '}
          <code>
            BENCH_QUALITY_UPLOAD={window.location.origin} BENCH_QUALITY_KEY=&lt;an API key with the lab scope&gt; pnpm bench:quality
          </code>{' '}
          (about an hour of calls on this machine; <code>BENCH_QUALITY_FROM=…/windows.json</code> stores a run already made).
        </Empty>
      )}
      {run && (
        <>
          <p data-testid="calibration-setup">
            Run stored {formatDateTime(run.createdAt)} ({timeZone}): {run.windows.length} windows of {run.setup.callS}-s calls,{' '}
            {run.setup.codec} {run.setup.width}×{run.setup.height} at {run.setup.fps} fps from {run.setup.sender} to {run.setup.receiver},
            on {contents.join(' and ')}. Scored by the model {run.setup.scoreModel}.
          </p>
          <AgreementTable windows={windows} allLabel={content === ALL ? 'all windows' : `all ${content} windows`} />
          <div className="charts">
            {PLOTS.map((plot) => (
              <CalibrationPlot key={plot.testId} {...plot} windows={windows} families={families} />
            ))}
          </div>
        </>
      )}
    </main>
  );
}

const rho = (v: number | null) => formatNumber(v, '', 2);
const span = (r: [number, number] | null, digits: number) => (r ? `${r[0].toFixed(digits)}–${r[1].toFixed(digits)}` : '–');

function AgreementTable({ windows, allLabel }: { windows: readonly CalibrationWindow[]; allLabel: string }) {
  const rows = useMemo(() => agreementTable(windows), [windows]);
  const meets = (over: string, a: Agreement) => {
    const target = over === 'all' ? TARGET.overall : over === 'family' ? TARGET.family : null;
    if (target === null || a.spearman === null) return null;
    // Where what was seen hardly moved, a correlation ranks noise: say so rather than pass or fail it.
    if (a.vmafRange && a.vmafRange[1] - a.vmafRange[0] < FLAT_VMAF) return 'VMAF flat: nothing to rank';
    return a.spearman >= target ? `meets ≥ ${target}` : `under ${target}`;
  };
  return (
    <table className="calls" data-testid="calibration-agreement">
      <thead>
        <tr>
          <th>Windows</th>
          <th>n</th>
          <th title="rank correlation of the score with VMAF: 1 when the score orders the windows as VMAF does">Spearman vs VMAF</th>
          <th>Pearson vs VMAF</th>
          <th title="mean absolute error against VMAF put on 1–5 (1 + 4·VMAF/100)">Error (points of 5)</th>
          <th>Spearman vs SSIM</th>
          <th>Score range</th>
          <th>VMAF range</th>
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
              <td>{rho(a.spearman)}</td>
              <td>{rho(a.pearson)}</td>
              <td>{formatNumber(a.mae, '', 2)}</td>
              <td>{rho(a.ssimSpearman)}</td>
              <td>{span(a.scoreRange, 2)}</td>
              <td>{span(a.vmafRange, 0)}</td>
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

interface PlotProps {
  title: string;
  xLabel: string;
  xDomain: [number, number];
  x: (w: CalibrationWindow) => number | null;
  windows: readonly CalibrationWindow[];
  families: readonly string[];
  testId: string;
}

/** One point per window, a colour per impairment family. */
function CalibrationPlot({ title, xLabel, xDomain, x, windows, families, testId }: PlotProps) {
  const series = families.map((family) => ({
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
            label={{ value: 'rtcscope video score, 1–5', angle: -90, position: 'insideLeft', style: { fill: '#6b7280', fontSize: 12 } }}
          />
          <Tooltip
            cursor={{ strokeDasharray: '3 3' }}
            formatter={(v, name) => [Number(v).toFixed(2), String(name)]}
            labelFormatter={() => ''}
          />
          <Legend verticalAlign="top" />
          {series.map((s, k) => (
            <Scatter key={s.family} name={s.family} data={s.points} fill={PALETTE[k % PALETTE.length]} isAnimationActive={false} />
          ))}
        </ScatterChart>
      </ResponsiveContainer>
    </section>
  );
}
