import { measureRun, OUTCOME_SERIES_POINTS, type RunOutcome, type RunResult } from '@rtcscope/experiments';
import { parseScenario } from '@rtcscope/scenario';
import { loadCallDetail } from '../calls/read.js';
import { loadSeries } from '../samples/call-series.js';
import type { Database } from '../db/database.js';

/**
 * What a run measured, from what the server stored of its calls (not from what the agent says): set
 * versus measured per flow and phase, and between the calls on a shared bottleneck.
 */
export async function computeOutcome(db: Database, projectId: string, scenarioJson: unknown, result: RunResult): Promise<RunOutcome> {
  const scenario = parseScenario(scenarioJson);
  if (!scenario.ok) throw new Error(`the run's stored scenario is invalid at ${scenario.error.field}: ${scenario.error.message}`);
  return measureRun(result, scenario.value, async (callId) => {
    const [detail, series] = await Promise.all([
      loadCallDetail(db, projectId, callId),
      loadSeries(db, projectId, callId, { maxPoints: OUTCOME_SERIES_POINTS }),
    ]);
    return detail && series && series !== 'reversed' ? { detail, series } : null;
  });
}
