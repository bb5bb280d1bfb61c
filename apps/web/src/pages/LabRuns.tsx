import type { CallList, CallSummary } from '@rtcscope/protocol';
import { findScenario } from '@rtcscope/scenario';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { CallMeans, CallMeansHeader } from '../components/CallMeans.js';
import { Empty, ErrorBox, Loading } from '../components/Status.js';
import { apiGet } from '../lib/api.js';
import { formatDateTime, formatDuration, timeZone } from '../lib/format.js';
import { liveSocket } from '../lib/live.js';
import { newestWins } from '../lib/newest.js';

/** Lab runs grouped by scenario, each scenario with its source and the paper's figures beside the runs. */
export function LabRuns() {
  const [calls, setCalls] = useState<CallSummary[] | null>(null);
  const [error, setError] = useState<Error | null>(null);

  const [begin] = useState(newestWins);

  const load = useCallback(async () => {
    const isNewest = begin();
    try {
      const { calls } = await apiGet<CallList>('/calls?lab=true&limit=500');
      if (!isNewest()) return;
      setCalls(calls);
      setError(null);
    } catch (err) {
      if (isNewest()) setError(err as Error);
    }
  }, [begin]);

  useEffect(() => {
    const s = liveSocket();
    const changed = () => void load();
    const initial = setTimeout(changed, 0);
    s.emit('subscribe', { calls: true });
    s.on('calls-changed', changed);
    return () => {
      clearTimeout(initial);
      s.off('calls-changed', changed);
    };
  }, [load]);

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
      {error && <ErrorBox error={error} onRetry={() => void load()} />}
      {!calls && !error && <Loading what="lab runs" />}
      {calls && calls.length === 0 && (
        <Empty>
          No lab runs yet. Run a scenario with <code>pnpm --silent lab run bw-steps --server … --ingest-key … --api-key …</code>; its calls
          appear here and in the calls list.
        </Empty>
      )}
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
                {scenario.paper.figures.map((f) => (
                  <span key={`${f.metric}-${f.label}`} className="chip">
                    {f.label}: {f.value}
                  </span>
                ))}
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
    </main>
  );
}
