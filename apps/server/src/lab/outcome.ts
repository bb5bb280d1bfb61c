import { type RunOutcome, type RunResult, summarizeRun, summarizeSharedBottleneck } from '@rtcscope/experiments';
import { parseScenario } from '@rtcscope/scenario';
import { loadCallDetail } from '../calls/read.js';
import { loadSeries } from '../calls/samples.js';
import type { Database } from '../db/database.js';

/**
 * What a run measured, from what the server stored of its calls (not from what the agent says): set
 * versus measured per flow and phase, and between the calls on a shared bottleneck.
 */
export async function computeOutcome(db: Database, projectId: string, scenarioJson: unknown, result: RunResult): Promise<RunOutcome> {
  const scenario = parseScenario(scenarioJson);
  if (!scenario.ok) throw new Error(`the run's stored scenario is invalid at ${scenario.error.field}: ${scenario.error.message}`);
  const perCall = [];
  for (const c of result.calls) {
    const [detail, series] = await Promise.all([
      loadCallDetail(db, projectId, c.callId),
      loadSeries(db, projectId, c.callId, { maxPoints: 10_000 }),
    ]);
    if (!detail || !series || series === 'reversed') throw new Error(`call ${c.callId} of the run stored no samples`);
    perCall.push({ callId: c.callId, detail, series });
  }
  const main = perCall[0];
  if (!main) throw new Error('the run reported no calls');
  return {
    run: summarizeRun(result, scenario.value, main.detail, main.series),
    sharedBottleneck: perCall.length > 1 || result.tcpFlows?.length ? summarizeSharedBottleneck(result, perCall) : null,
  };
}
