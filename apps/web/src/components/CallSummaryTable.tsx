import { MEAN_DEFINITIONS } from '@rtcscope/metrics';
import type { ParticipantSummary } from '../lib/calldata.js';
import { formatNumber } from '../lib/format.js';

const pair = (mean: number | null, worst: number | null, unit: string, digits: number) => (
  <>
    {formatNumber(mean, unit, digits)}
    <span className="muted"> / {formatNumber(worst, unit, digits)}</span>
  </>
);

/** The call at a glance: per participant, each metric's mean over the call and its worst sample. */
export function CallSummaryTable({
  summary,
  colors,
  hidden,
}: {
  summary: ParticipantSummary[];
  colors: ReadonlyMap<string, string>;
  hidden: ReadonlySet<string>;
}) {
  const shown = summary.filter((p) => !hidden.has(p.participantId));
  if (!shown.length) return null;
  return (
    <section className="panel" data-testid="call-summary">
      <h2>
        Summary <span className="unit">(mean / worst over the call)</span>
      </h2>
      <table className="calls summary">
        <thead>
          <tr>
            <th>Participant</th>
            <th title="its streams summed per interval; worst = lowest">Sending</th>
            <th title="its streams summed per interval; worst = lowest">Receiving</th>
            <th title={`${MEAN_DEFINITIONS.rttMs}; worst = highest`}>RTT</th>
            <th title={`${MEAN_DEFINITIONS.lossPct}; worst = highest`}>Loss received</th>
            <th title="jitter of every received stream; worst = highest">Jitter</th>
            <th title={`${MEAN_DEFINITIONS.fps}; worst = lowest`}>FPS received</th>
            <th title="frame height of every received video stream; worst = lowest">Height received</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((p) => (
            <tr key={p.participantId} data-testid={`summary-${p.participantId}`}>
              <td>
                <span className="swatch" style={{ background: colors.get(p.participantId) }} />
                {p.participantId}
              </td>
              <td>{pair(p.sentKbps.mean, p.sentKbps.min, 'kbit/s', 0)}</td>
              <td>{pair(p.receivedKbps.mean, p.receivedKbps.min, 'kbit/s', 0)}</td>
              <td>{pair(p.rttMs.mean, p.rttMs.max, 'ms', 1)}</td>
              <td>{pair(p.lossPct.mean, p.lossPct.max, '%', 2)}</td>
              <td>{pair(p.jitterMs.mean, p.jitterMs.max, 'ms', 1)}</td>
              <td>{pair(p.fps.mean, p.fps.min, 'fps', 1)}</td>
              <td>{pair(p.height.mean, p.height.min, 'px', 0)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted small">
        Hover a column name for its definition. Worst: the highest RTT, loss and jitter, the lowest rate, FPS and height of any sample.
      </p>
    </section>
  );
}
