import { type CampaignDetail, headline, type Headline, METRICS, overRepetitions, paperFigures, readOutcome } from '@rtcscope/experiments';
import type { Scenario } from '@rtcscope/scenario';
import { useCallback } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { Link, useSearchParams } from 'react-router';
import { formatPaper, formatSpread, MetricName } from '../components/Results.js';
import { ErrorBox, Loading } from '../components/Status.js';
import { apiGet } from '../lib/api.js';
import { comparePlot } from '../lib/runplots.js';
import { useLoad } from '../lib/hooks.js';

const outcomes = (d: CampaignDetail) => d.runs.filter((r) => r.status === 'done' && r.outcome).map((r) => readOutcome(r.outcome));
const headlines = (d: CampaignDetail): Headline[] => outcomes(d).map(headline);

/** Two campaigns side by side: every figure over their repetitions, the difference, and the paper. */
export function Compare() {
  const [params] = useSearchParams();
  const ids = [params.get('a'), params.get('b')];
  const key = ids.join(',');
  const fetchPair = useCallback(() => {
    const [a, b] = key.split(',');
    return Promise.all([apiGet<CampaignDetail>(`/lab/campaigns/${a}`), apiGet<CampaignDetail>(`/lab/campaigns/${b}`)]);
  }, [key]);
  const { data: pair, error } = useLoad(fetchPair);

  if (error)
    return (
      <main>
        <ErrorBox error={error} />
      </main>
    );
  if (!pair)
    return (
      <main>
        <Loading what="the two campaigns" />
      </main>
    );
  const [a, b] = pair;
  const [sa, sb] = [overRepetitions(headlines(a)), overRepetitions(headlines(b))];
  const metrics = METRICS.filter((m) => sa[m.key].n > 0 || sb[m.key].n > 0);
  const rows = comparePlot({ runs: outcomes(a), scale: a.campaign.timeScale }, { runs: outcomes(b), scale: b.campaign.timeScale });

  return (
    <main>
      <div className="toolbar">
        <Link to="/lab">← Experiments</Link>
        <h1>Compare campaigns</h1>
      </div>
      <section className="panel">
        <table className="calls results" data-testid="compare">
          <thead>
            <tr>
              <th>Figure</th>
              {[a, b].map((d) => (
                <th key={d.campaign.id}>
                  <Link to={`/lab/campaigns/${d.campaign.id}`}>
                    #{d.campaign.id} {d.campaign.name}
                  </Link>
                  <div className="muted">
                    {d.campaign.scenarioId} at ×{d.campaign.timeScale}, {headlines(d).length} finished run(s)
                  </div>
                </th>
              ))}
              <th>B − A</th>
              <th>Paper</th>
            </tr>
          </thead>
          <tbody>
            {metrics.map((m) => {
              const [x, y] = [sa[m.key].mean, sb[m.key].mean];
              const diff = x !== null && y !== null ? y - x : null;
              const paper = [...new Set([a, b].flatMap((d) => paperFigures(d.scenario as Scenario, m.key).map((p) => formatPaper(p, m))))];
              return (
                <tr key={m.key}>
                  <td>
                    <MetricName m={m} />
                  </td>
                  <td>{formatSpread(sa[m.key], m.digits)}</td>
                  <td>{formatSpread(sb[m.key], m.digits)}</td>
                  <td>
                    {diff === null
                      ? '–'
                      : `${diff >= 0 ? '+' : ''}${diff.toFixed(m.digits)}${x ? ` (${diff >= 0 ? '+' : ''}${((diff / x) * 100).toFixed(0)} %)` : ''}`}
                  </td>
                  <td>{paper.length ? paper.map((p) => <div key={p}>{p}</div>) : '–'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {metrics.length === 0 && <p className="muted">Neither campaign has a finished run yet.</p>}
      </section>
      {rows.length > 0 && (
        <section className="panel" data-testid="compare-plot">
          <h2>
            Sending rate, both campaigns <span className="unit">(kbit/s)</span>
          </h2>
          <ResponsiveContainer width="100%" height={280}>
            <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 4, left: 8 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" />
              <XAxis
                dataKey="t"
                type="number"
                domain={[0, 'dataMax']}
                height={36}
                label={{ value: 'scenario time (s)', position: 'insideBottom', offset: -2, style: { fill: '#6b7280', fontSize: 11 } }}
              />
              <YAxis width={64} label={{ value: 'kbit/s', angle: -90, position: 'insideLeft', style: { fill: '#6b7280', fontSize: 12 } }} />
              <Tooltip
                labelFormatter={(t) => `${Number(t).toFixed(1)} s of the scenario`}
                formatter={(v) => (typeof v === 'number' ? `${v.toFixed(0)} kbit/s` : String(v))}
              />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              <Line
                dataKey="A"
                name={`A: #${a.campaign.id} ${a.campaign.name}`}
                stroke="#0072B2"
                strokeWidth={1.8}
                dot={false}
                isAnimationActive={false}
                connectNulls
              />
              <Line
                dataKey="B"
                name={`B: #${b.campaign.id} ${b.campaign.name}`}
                stroke="#D55E00"
                strokeWidth={1.8}
                strokeDasharray="6 3"
                dot={false}
                isAnimationActive={false}
                connectNulls
              />
            </LineChart>
          </ResponsiveContainer>
          <p className="muted small">
            Each campaign's sending rate per second, the mean over its participants and finished repetitions, on the scenario's time (so
            runs at different time scales line up).
          </p>
        </section>
      )}
    </main>
  );
}
