import { type CampaignDetail, headline, type Headline, METRICS, overRepetitions, paperFigures, readOutcome } from '@rtcscope/experiments';
import type { Scenario } from '@rtcscope/scenario';
import { useCallback } from 'react';
import { Link, useSearchParams } from 'react-router';
import { formatPaper, formatSpread, MetricName } from '../components/Results.js';
import { ErrorBox, Loading } from '../components/Status.js';
import { apiGet } from '../lib/api.js';
import { useLoad } from '../lib/hooks.js';

const headlines = (d: CampaignDetail): Headline[] => d.runs.filter((r) => r.status === 'done' && r.outcome).map((r) => headline(readOutcome(r.outcome)));

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

  if (error) return <main><ErrorBox error={error} /></main>;
  if (!pair) return <main><Loading what="the two campaigns" /></main>;
  const [a, b] = pair;
  const [sa, sb] = [overRepetitions(headlines(a)), overRepetitions(headlines(b))];
  const metrics = METRICS.filter((m) => sa[m.key].n > 0 || sb[m.key].n > 0);

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
                    {d.campaign.scenarioId}, {headlines(d).length} finished run(s)
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
                  <td>{diff === null ? '–' : `${diff >= 0 ? '+' : ''}${diff.toFixed(m.digits)}${x ? ` (${diff >= 0 ? '+' : ''}${((diff / x) * 100).toFixed(0)} %)` : ''}`}</td>
                  <td>
                    {paper.length
                      ? paper.map((p) => <div key={p}>{p}</div>)
                      : '–'}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {metrics.length === 0 && <p className="muted">Neither campaign has a finished run yet.</p>}
      </section>
    </main>
  );
}
