import { type Headline, METRICS, type MetricKey, overRepetitions, paperFigures, type Spread } from '@rtcscope/experiments';
import type { Scenario } from '@rtcscope/scenario';

const format = (v: number | null, digits: number) => (v === null ? '–' : v.toFixed(digits));

export function formatSpread(s: Spread, digits: number): string {
  if (s.mean === null) return '–';
  return s.sd === null ? format(s.mean, digits) : `${format(s.mean, digits)} ± ${format(s.sd, digits)}`;
}

/** Metrics some run measured; the rest would be a column of dashes. */
export function measuredMetrics(headlines: readonly Headline[]) {
  return METRICS.filter((m) => headlines.some((h) => h[m.key] !== null));
}

/** Every figure over the finished repetitions: mean ± sd (n), range, and the paper's value beside. */
export function OverRepetitions({ headlines, scenario, testId }: { headlines: Headline[]; scenario: Pick<Scenario, 'paper'> | null; testId?: string }) {
  const spread = overRepetitions(headlines);
  const metrics = measuredMetrics(headlines);
  if (!metrics.length) return <p className="muted">No finished repetition yet.</p>;
  return (
    <table className="calls results" data-testid={testId}>
      <thead>
        <tr>
          <th>Figure</th>
          <th>Mean ± sd</th>
          <th>n</th>
          <th>Range</th>
          <th>Paper</th>
        </tr>
      </thead>
      <tbody>
        {metrics.map((m) => {
          const s = spread[m.key as MetricKey];
          const paper = paperFigures(scenario, m.key);
          return (
            <tr key={m.key} data-metric={m.key}>
              <td>
                {m.label} {m.unit && <span className="unit">({m.unit})</span>}
              </td>
              <td>{formatSpread(s, m.digits)}</td>
              <td>{s.n}</td>
              <td>{s.min === null ? '–' : `${format(s.min, m.digits)} – ${format(s.max, m.digits)}`}</td>
              <td>{paper.length ? paper.map((p) => `${p.value}${m.key === 'utilization' && typeof p.value === 'number' && p.value <= 1 ? ` (${Math.round(p.value * 100)} %)` : ''} (${p.label})`).join('; ') : '–'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
