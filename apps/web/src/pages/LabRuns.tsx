import { METRICS } from '@rtcscope/experiments';
import type { CallList, CallSummary } from '@rtcscope/protocol';
import { findScenario } from '@rtcscope/scenario';
import { useCallback, useMemo } from 'react';
import { Link } from 'react-router';
import { formatPaper } from '../components/Results.js';
import { CallMeans, CallMeansHeader, CallMeansNote } from '../components/CallMeans.js';
import { Listing } from '../components/Status.js';
import { apiGet } from '../lib/api.js';
import { formatDateTime, formatDuration, timeZone } from '../lib/format.js';
import { useLive, useLoad } from '../lib/hooks.js';

/** Lab runs grouped by scenario, each scenario with its source and the paper's figures beside the runs. */
export function LabRuns() {
  const fetchCalls = useCallback(async () => (await apiGet<CallList>('/calls?lab=true&limit=500')).calls, []);
  const { data: calls, error, reload: load } = useLoad(fetchCalls);
  useLive({ calls: true }, { 'calls-changed': () => void load() }, load);

  const byScenario = useMemo(() => {
    const groups = new Map<string, CallSummary[]>();
    for (const c of calls ?? []) {
      const id = String(c.metadata.scenario ?? 'unknown');
      groups.set(id, [...(groups.get(id) ?? []), c]);
    }
    return [...groups].sort(([a], [b]) => a.localeCompare(b));
  }, [calls]);

  return (
    <main>
      <div className="toolbar">
        <h1>Lab runs</h1>
        <span className="muted">Times in {timeZone}. Open a call to see what was set next to what was measured.</span>
      </div>
      <Listing
        items={calls}
        error={error}
        onRetry={() => void load()}
        what="lab runs"
        empty={
          <>
            No lab runs yet. Run a scenario with <code>pnpm --silent lab run bw-steps --server … --ingest-key … --api-key …</code>; its
            calls appear here and in the calls list.
          </>
        }
      >
        {() => (
          <>
            {byScenario.map(([id, runs]) => {
              const scenario = findScenario(id);
              return (
                <section className="panel" key={id} data-testid={`lab-scenario-${id}`}>
                  <h2>
                    {scenario?.title ?? id} <span className="unit">({id})</span>
                  </h2>
                  {scenario?.source && <p className="muted">{scenario.source}</p>}
                  {scenario?.paper && scenario.paper.figures.length > 0 && (
                    <p>
                      Paper:{' '}
                      {scenario.paper.figures.map((f) => {
                        const m = METRICS.find((x) => x.key === f.metric) ?? null;
                        return (
                          <span key={`${f.metric}-${f.label}`} className="chip">
                            {m?.label ?? f.metric}: {formatPaper({ label: f.label, value: f.value, source: f.source ?? null }, m)}
                          </span>
                        );
                      })}
                    </p>
                  )}
                  <table className="calls">
                    <thead>
                      <tr>
                        <th>Call</th>
                        <th>Run</th>
                        <th>Repetition</th>
                        <th>State</th>
                        <th>Started</th>
                        <th>Duration</th>
                        <CallMeansHeader />
                      </tr>
                    </thead>
                    <tbody>
                      {runs.map((c) => (
                        <tr key={c.id}>
                          <td>
                            <Link to={`/calls/${encodeURIComponent(c.id)}`}>{c.id}</Link>
                          </td>
                          <td>{String(c.metadata.run ?? '–')}</td>
                          <td>{String(c.metadata.repetition ?? '–')}</td>
                          <td>
                            <span className={`badge ${c.state}`}>{c.state}</span>
                          </td>
                          <td>{formatDateTime(c.startedAt)}</td>
                          <td>{formatDuration((c.endedAt ?? c.lastSeenAt) - c.startedAt)}</td>
                          <CallMeans call={c} />
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </section>
              );
            })}
            <CallMeansNote />
          </>
        )}
      </Listing>
    </main>
  );
}
