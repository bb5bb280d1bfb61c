import { MEAN_DEFINITIONS, VERDICT_RULE } from '@rtcscope/metrics';
import type { CallSummary } from '@rtcscope/protocol';
import { formatNumber } from '../lib/format.js';

/** The call-level means both call tables show, as header cells and as row cells, and what they mean. */
export function CallMeansHeader() {
  return (
    <>
      <th title={VERDICT_RULE}>Verdict*</th>
      <th title={MEAN_DEFINITIONS.rttMs}>Mean RTT*</th>
      <th title={MEAN_DEFINITIONS.lossPct}>Mean loss*</th>
      <th title={MEAN_DEFINITIONS.fps}>Mean FPS*</th>
    </>
  );
}

export function CallMeans({ call }: { call: CallSummary }) {
  return (
    <>
      <td>
        <span className={`quality ${call.quality}`} title={VERDICT_RULE} data-testid="verdict">
          {call.quality}
        </span>
      </td>
      <td>{formatNumber(call.meanRttMs, 'ms', 0)}</td>
      <td>{formatNumber(call.meanLossPct, '%', 2)}</td>
      <td>{formatNumber(call.meanFps, 'fps', 1)}</td>
    </>
  );
}

/** Said once under a table of calls: what each starred column is. */
export function CallMeansNote() {
  return (
    <dl className="definitions" data-testid="means-definitions">
      <dt>Verdict</dt>
      <dd>{VERDICT_RULE}</dd>
      <dt>Mean RTT</dt>
      <dd>{MEAN_DEFINITIONS.rttMs}</dd>
      <dt>Mean loss</dt>
      <dd>{MEAN_DEFINITIONS.lossPct}</dd>
      <dt>Mean FPS</dt>
      <dd>{MEAN_DEFINITIONS.fps}</dd>
    </dl>
  );
}
