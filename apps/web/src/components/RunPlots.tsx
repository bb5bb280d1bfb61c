import { describeConditions, type FlowPhase, type RunOutcome } from '@rtcscope/experiments';
import type { CallDiagnosis } from '@rtcscope/protocol';
import type { Scenario } from '@rtcscope/scenario';
import type { ReactNode } from 'react';
import { Area, CartesianGrid, ComposedChart, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { participantColors } from '../lib/calldata.js';
import { formatNumber } from '../lib/format.js';
import { issueName } from '../lib/diagnosis.js';
import { lossPlot, type Plot, phaseJudgements, phaseRows, ratePlot, rttPlot } from '../lib/runplots.js';
import { LINE_STYLE } from './MetricChart.js';

const PAPER = '#111827';

const describe = (p: FlowPhase) =>
  p.rampFrom ? `ramp: ${describeConditions(p.rampFrom)} → ${describeConditions(p.set)}` : describeConditions(p.set);

function tooltipValue(unit: string) {
  return (v: unknown) =>
    Array.isArray(v)
      ? `${Number(v[0]).toFixed(0)}–${Number(v[1]).toFixed(0)} ${unit}`
      : typeof v === 'number'
        ? `${v.toFixed(0)} ${unit}`
        : String(v);
}

/** One panel: per participant the mean over repetitions, its range as a band, and the reference lines. */
function OverTime({
  title,
  unit,
  plot,
  references,
  testId,
  note,
}: {
  title: string;
  unit: string;
  plot: Plot;
  references: { key: string; name: string; color: string; dash?: string; width: number; opacity?: number }[];
  testId: string;
  note: ReactNode;
}) {
  const colors = participantColors(plot.participants);
  return (
    <section className="panel" data-testid={testId}>
      <h3>
        {title} <span className="unit">({unit})</span>
      </h3>
      <ResponsiveContainer width="100%" height={260}>
        <ComposedChart data={plot.rows} margin={{ top: 8, right: 16, bottom: 4, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" />
          <XAxis
            dataKey="t"
            type="number"
            domain={[0, 'dataMax']}
            height={36}
            label={{ value: 'scenario time (s)', position: 'insideBottom', offset: -2, style: { fill: '#6b7280', fontSize: 11 } }}
          />
          <YAxis width={64} label={{ value: unit, angle: -90, position: 'insideLeft', style: { fill: '#6b7280', fontSize: 12 } }} />
          <Tooltip
            labelFormatter={(t) => `${Number(t).toFixed(1)} s of the scenario`}
            formatter={tooltipValue(unit)}
            wrapperStyle={{ fontSize: 12 }}
          />
          <Legend wrapperStyle={{ fontSize: 12, paddingTop: 4 }} />
          {plot.participants.map((p) => (
            <Area
              key={`${p} range`}
              dataKey={`${p} range`}
              name={`${p} range over repetitions`}
              stroke="none"
              fill={colors.get(p)}
              fillOpacity={0.15}
              isAnimationActive={false}
              legendType="square"
              connectNulls
            />
          ))}
          {plot.participants.map((p) => (
            <Line
              key={p}
              dataKey={p}
              name={`${p} (mean)`}
              stroke={colors.get(p)}
              strokeWidth={1.8}
              dot={false}
              isAnimationActive={false}
              legendType="plainline"
              connectNulls
            />
          ))}
          {references.map((r) => (
            <Line
              key={r.key}
              dataKey={r.key}
              name={r.name}
              stroke={r.color}
              strokeDasharray={r.dash}
              strokeWidth={r.width}
              strokeOpacity={r.opacity ?? 1}
              type="stepAfter"
              dot={false}
              isAnimationActive={false}
              legendType="plainline"
            />
          ))}
        </ComposedChart>
      </ResponsiveContainer>
      <p className="muted small">{note}</p>
    </section>
  );
}

/**
 * A variant's finished runs drawn like the papers' figures, and their phases in a table beside what the
 * diagnosis found in each (`diagnoses`: the runs' calls' diagnosis by call id, null while loading).
 */
export function RunPlots({
  runs,
  scale,
  scenario,
  testId,
  diagnoses,
}: {
  runs: RunOutcome[];
  scale: number;
  scenario: Scenario;
  testId: string;
  diagnoses: ReadonlyMap<string, CallDiagnosis> | null;
}) {
  const withSeconds = runs.filter((o) => o.run.flows.some((f) => f.perSecond.length > 0));
  if (!withSeconds.length)
    return runs.length ? (
      <p className="muted">These runs were summarized before per-second series were kept; run the campaign again to plot them.</p>
    ) : null;
  const rate = ratePlot(withSeconds, scale, scenario.paper);
  const colors = participantColors(rate.participants);
  const set = LINE_STYLE.set;
  const caps = rate.participants.map((p) => ({
    key: `${p} cap`,
    name: `cap on ${p}'s path (set)`,
    color: colors.get(p)!,
    width: set.width,
    opacity: set.opacity,
  }));
  const hasPaper = rate.rows.some((r) => r.paper !== null);
  const rtt = rttPlot(withSeconds, scale, scenario.participants.count === 2 && scenario.links.mode === 'per-participant');
  const loss = lossPlot(withSeconds);
  const phases = phaseRows(withSeconds, scale, describe);
  const judged = diagnoses ? phaseJudgements(phases, withSeconds, scale, diagnoses) : null;
  const n = withSeconds.length;

  return (
    <div data-testid={testId}>
      <div className="grid">
        <OverTime
          title="Sending rate against the set cap"
          unit="kbit/s"
          plot={rate}
          testId="plot-rate"
          references={[...caps, ...(hasPaper ? [{ key: 'paper', name: 'paper', color: PAPER, dash: '8 4', width: 1.6 }] : [])]}
          note={
            <>
              {n} repetition{n === 1 ? '' : 's'}: line = mean, band = range. Wide pale steps: the cap set on each sender's path.
              {hasPaper && ` Dashed black: the paper's rate (${[...new Set(scenario.paper?.rates?.map((r) => r.source))].join('; ')}).`}
            </>
          }
        />
        <OverTime
          title="RTT against the set delay"
          unit="ms"
          plot={rtt}
          testId="plot-rtt"
          references={[{ key: 'set', name: 'RTT set (delays there and back)', color: '#6b7280', width: set.width, opacity: set.opacity }]}
          note="The RTT the sender measured (remote-inbound-rtp) beside the delay the lab added on the way there and back; queueing adds to it when the cap is tight."
        />
        {loss.length > 0 && (
          <section className="panel" data-testid="plot-loss">
            <h3>
              Settled rate against the set loss <span className="unit">(kbit/s)</span>
            </h3>
            <ResponsiveContainer width="100%" height={260}>
              <LineChart data={loss.map((l) => ({ lossPct: l.lossPct, ...l.kbps }))} margin={{ top: 8, right: 16, bottom: 4, left: 8 }}>
                <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" />
                <XAxis
                  dataKey="lossPct"
                  type="number"
                  domain={[0, 'dataMax']}
                  height={36}
                  label={{
                    value: 'loss set on the path (%)',
                    position: 'insideBottom',
                    offset: -2,
                    style: { fill: '#6b7280', fontSize: 11 },
                  }}
                />
                <YAxis
                  width={64}
                  label={{ value: 'kbit/s', angle: -90, position: 'insideLeft', style: { fill: '#6b7280', fontSize: 12 } }}
                />
                <Tooltip labelFormatter={(l) => `${l} % loss`} formatter={tooltipValue('kbit/s')} wrapperStyle={{ fontSize: 12 }} />
                <Legend wrapperStyle={{ fontSize: 12 }} />
                {rate.participants.map((p) => (
                  <Line
                    key={p}
                    dataKey={p}
                    name={`${p} settled rate`}
                    stroke={colors.get(p)}
                    strokeWidth={1.8}
                    dot={{ r: 3 }}
                    isAnimationActive={false}
                  />
                ))}
              </LineChart>
            </ResponsiveContainer>
            <p className="muted small">
              Each point: the mean of the second half of every phase with that loss, over the repetitions (the papers' rate-against-loss).
            </p>
          </section>
        )}
      </div>
      <section className="panel">
        <h3>Phases</h3>
        <table className="calls" data-testid="phases">
          <thead>
            <tr>
              <th>Sender</th>
              <th>Scenario time (s)</th>
              <th>Set on its path</th>
              <th title="mean sending rate over the phase">Sent (kbit/s)</th>
              <th title="mean of the phase's second half">Settled (kbit/s)</th>
              <th title="mean rate the far end received over the phase">Received (kbit/s)</th>
              <th title="received / cap, at most 100 %">Utilization (%)</th>
              <th title="until the rate stays within ±15 % of where it settled; seconds of the run (a call settles in real time, whatever the time scale)">
                Steady after (s of run)
              </th>
              <th title="in a pair, the mean frame rate and frame width of the video the far end received over the phase">
                Far end sees (fps, px wide)
              </th>
              <th title="the call's mean score (1–5) over the 5-s windows that start within the phase, averaged over the repetitions (docs/diagnosis.md)">
                Call score
              </th>
              <th title="issues the diagnosis raised that started within the phase: participant, issue, in how many of the repetitions">
                Issues raised
              </th>
            </tr>
          </thead>
          <tbody>
            {phases.map((p, k) => (
              <tr key={`${p.participant}-${k}`}>
                <td>
                  <span className="swatch" style={{ background: colors.get(p.participant) }} />
                  {p.participant}
                </td>
                <td>
                  {p.from.toFixed(0)}–{p.to.toFixed(0)}
                </td>
                <td>{p.set}</td>
                <td>{formatNumber(p.meanKbps, '', 0)}</td>
                <td>{formatNumber(p.settledKbps, '', 0)}</td>
                <td>{formatNumber(p.receivedKbps, '', 0)}</td>
                <td>{formatNumber(p.utilization, '', 0)}</td>
                <td>{formatNumber(p.steadyAfterS, '', 1)}</td>
                <td>{p.receivedFps === null ? '–' : `${formatNumber(p.receivedFps, '', 1)}, ${formatNumber(p.receivedWidth, '', 0)}`}</td>
                <td data-testid="phase-score">{judged ? formatNumber(judged[k]!.score, '', 2) : '…'}</td>
                <td data-testid="phase-issues">
                  {judged === null
                    ? '…'
                    : judged[k]!.issues.length === 0
                      ? judged[k]!.judged
                        ? 'none'
                        : '–'
                      : judged[k]!.issues.map((i) => (
                          <span
                            key={`${i.participant} ${i.type}`}
                            className={`issue-badge ${i.severity}`}
                            title={`in ${i.runs} of ${judged[k]!.judged} repetitions`}
                          >
                            {i.participant} {issueName(i.type)}
                            {judged[k]!.judged > 1 ? ` ${i.runs}/${judged[k]!.judged}` : ''}
                          </span>
                        ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted small">
          Means over {n} repetition{n === 1 ? '' : 's'}. A phase starts at every change of any condition on the sender's path: its uplink
          and its receiver's downlink, or the shared bottleneck. The diagnosis' columns are the whole call's in those seconds (every
          participant), so the set conditions and what they caused read side by side.
        </p>
      </section>
    </div>
  );
}
