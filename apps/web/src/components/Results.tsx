import {
  type Headline,
  METRICS,
  type MetricKey,
  overRepetitions,
  type PaperFigure,
  paperFigures,
  paperOnlyMetrics,
  type Spread,
  steadyStateBound,
} from '@rtcscope/experiments';
import type { Scenario } from '@rtcscope/scenario';
import { Empty } from './Status.js';

type Metric = (typeof METRICS)[number];

const format = (v: number | null, digits: number) => (v === null ? '–' : v.toFixed(digits));

export function formatSpread(s: Spread, digits: number): string {
  if (s.mean === null) return '–';
  return s.sd === null ? format(s.mean, digits) : `${format(s.mean, digits)} ± ${format(s.sd, digits)}`;
}

/** A paper's value in the format of ours (same digits and unit), with what it is and where it is from. */
export function formatPaper(p: PaperFigure, m: Pick<Metric, 'digits' | 'unit'> | null): string {
  const value = typeof p.value === 'number' && m ? `${p.value.toFixed(m.digits)}${m.unit ? ` ${m.unit}` : ''}` : String(p.value);
  return `${value} (${p.label}${p.source ? `; ${p.source}` : ''})`;
}

/** Metrics some run measured or the paper gives; the rest would be a row of dashes. */
export function shownMetrics(headlines: readonly Headline[], scenario: Pick<Scenario, 'paper'> | null): Metric[] {
  return METRICS.filter((m) => headlines.some((h) => h[m.key] !== null) || paperFigures(scenario, m.key).length > 0);
}

export function MetricName({ m }: { m: Metric }) {
  return (
    <>
      {m.label} {m.unit && <span className="unit">({m.unit})</span>}
      <div className="definition">{m.definition}</div>
    </>
  );
}

/** Every figure over the finished repetitions: mean ± sd (n), range, and every figure the paper gives beside. */
export function OverRepetitions({
  headlines,
  scenario,
  testId,
}: {
  headlines: Headline[];
  scenario: Pick<Scenario, 'paper'> | null;
  testId?: string;
}) {
  const spread = overRepetitions(headlines);
  const metrics = shownMetrics(headlines, scenario);
  const extra = paperOnlyMetrics(scenario);
  if (!headlines.length) return <Empty>No finished repetition yet.</Empty>;
  return (
    <table className="calls results" data-testid={testId}>
      <thead>
        <tr>
          <th>Figure (definition)</th>
          <th>Mean ± sd</th>
          <th>n</th>
          <th>Range</th>
          <th>Paper</th>
        </tr>
      </thead>
      <tbody>
        {metrics.map((m) => {
          const s = spread[m.key as MetricKey];
          const bound = m.key === 'steadyAfterS' ? steadyStateBound(spread, paperFigures(scenario, m.key)) : null;
          return (
            <tr key={m.key} data-metric={m.key}>
              <td>
                <MetricName m={m} />
              </td>
              <td>
                {formatSpread(s, m.digits)}
                {bound !== null && (
                  <div className="definition" data-testid="bounded-by-phase">
                    bounded by the phase: this run's phases after a change lasted {bound.toFixed(1)} s or less, too short to show the
                    paper's time; compare at time scale 1
                  </div>
                )}
              </td>
              <td>{s.n}</td>
              <td>{s.min === null ? '–' : `${format(s.min, m.digits)} – ${format(s.max, m.digits)}`}</td>
              <td>
                {paperFigures(scenario, m.key).map((p) => (
                  <div key={p.label}>{formatPaper(p, m)}</div>
                ))}
                {paperFigures(scenario, m.key).length === 0 && (
                  <span
                    className="muted"
                    title={scenario?.paper ? 'the paper reports no figure of this for this experiment' : 'this scenario cites no paper'}
                  >
                    {scenario?.paper ? 'not reported' : 'no paper'}
                  </span>
                )}
              </td>
            </tr>
          );
        })}
        {extra.map((key) => (
          <tr key={key} data-metric={key}>
            <td>
              {key}
              <div className="definition">given by the paper; runs here do not measure it</div>
            </td>
            <td>–</td>
            <td>0</td>
            <td>–</td>
            <td>
              {paperFigures(scenario, key).map((p) => (
                <div key={p.label}>{formatPaper(p, null)}</div>
              ))}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
