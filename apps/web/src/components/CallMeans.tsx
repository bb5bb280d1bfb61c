import type { CallSummary } from '@rtcscope/protocol';
import { formatNumber } from '../lib/format.js';

/** The call-level means both call tables show, as header cells and as row cells. */
export function CallMeansHeader() {
  return (
    <>
      <th>Mean RTT</th>
      <th>Mean loss</th>
      <th>Mean FPS</th>
    </>
  );
}

export function CallMeans({ call }: { call: CallSummary }) {
  return (
    <>
      <td>{formatNumber(call.meanRttMs, 'ms', 0)}</td>
      <td>{formatNumber(call.meanLossPct, '%', 2)}</td>
      <td>{formatNumber(call.meanFps, 'fps', 1)}</td>
    </>
  );
}
