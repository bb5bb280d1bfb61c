import { type CampaignDetail, campaignProgress, headline, type RunInfo, readOutcome, toCsv } from '@rtcscope/experiments';
import type { CallDiagnosis, CallList, LabProgress } from '@rtcscope/protocol';
import { type Scenario, timeScaleWarnings } from '@rtcscope/scenario';
import { useCallback, useEffect, useRef } from 'react';
import { Link, useParams } from 'react-router';
import { MetricChart } from '../components/MetricChart.js';
import { ProgressBar, StatusBadge } from '../components/Progress.js';
import { OverRepetitions, shownMetrics } from '../components/Results.js';
import { RunPlots } from '../components/RunPlots.js';
import { Empty, ErrorBox, Loading } from '../components/Status.js';
import { ApiError, apiGet, apiSend } from '../lib/api.js';
import { mayDo } from '../lib/auth.js';
import { issueName } from '../lib/diagnosis.js';
import { formatDateTime, formatDuration, formatNumber, timeZone } from '../lib/format.js';
import { useAction, useLoad, useNow } from '../lib/hooks.js';
import { download } from '../lib/download.js';
import { useLabLive } from '../lib/lab.js';
import { useCallData } from '../lib/useCallData.js';

const finished = (r: RunInfo) => r.status === 'done' && r.outcome !== null;

/** A running run's main call, drawn live: rate against the cap that is set, and received FPS. */
function LiveRun({ run }: { run: RunInfo & { callId: string } }) {
  const { snapshot } = useCallData(run.callId);
  const now = useNow(1000);
  if (!snapshot) return <Loading what={`call ${run.callId}`} />;
  const start = run.startedAt ?? now;
  const common = {
    domain: [start, Math.max(now, start + 1000)] as [number, number],
    events: [],
    hidden: new Set<string>(),
    onToggle: () => {},
    colors: snapshot.colors,
  };
  return (
    <div className="grid" data-testid="live-run">
      <MetricChart
        title={`Run ${run.id}: data rate`}
        unit="kbit/s"
        chart={snapshot.charts.rate}
        testId="live-rate"
        digits={0}
        {...common}
      />
      <MetricChart title={`Run ${run.id}: frame rate`} unit="fps" chart={snapshot.charts.fps} testId="live-fps" {...common} />
    </div>
  );
}

export function Campaign() {
  const { id = '' } = useParams();
  const settledDiagnoses = useRef(new Map<string, CallDiagnosis>());
  const fetchDetail = useCallback(async () => {
    const [campaign, calls] = await Promise.all([
      apiGet<CampaignDetail>(`/lab/campaigns/${encodeURIComponent(id)}`),
      // The runs' calls are named "<scenario>-c<campaign>-v<variant>-r<repetition>": their diagnosis, by id.
      apiGet<CallList>(`/calls?lab=true&limit=500&q=${encodeURIComponent(`-c${id}-v`)}`),
    ]);
    const judged = new Map(calls.calls.map((c) => [c.id, c]));
    // Each finished run's call judged over time, for the phases beside the conditions set in them. An
    // ended call's diagnosis is final: it is read once, not again on every change in the lab.
    const diagnosed = await Promise.all(
      campaign.runs
        .filter(finished)
        .map((r) => readOutcome(r.outcome).run.callId)
        .map(async (callId) => {
          const known = settledDiagnoses.current.get(callId);
          if (known) return [callId, known] as const;
          const d = await apiGet<CallDiagnosis>(`/calls/${encodeURIComponent(callId)}/diagnosis`).catch(() => null);
          if (d && judged.get(callId)?.state === 'ended') settledDiagnoses.current.set(callId, d);
          return [callId, d] as const;
        }),
    );
    const diagnoses = new Map(diagnosed.filter((d): d is readonly [string, CallDiagnosis] => d[1] !== null));
    return { ...campaign, judged, diagnoses };
  }, [id]);
  const { data: detail, error, reload: load, setData: setDetail } = useLoad(fetchDetail);
  // A run names its call before the call's first samples are stored: its chart waits for the call to be
  // listed (asking for it sooner would be refused), looked for again while progress comes in.
  const knownCalls = useRef<ReadonlyMap<string, unknown>>(new Map());
  useEffect(() => {
    if (detail) knownCalls.current = detail.judged;
  }, [detail]);
  const lookedAt = useRef(0);
  const onProgress = useCallback(
    (p: LabProgress) => {
      if (p.campaignId !== Number(id)) return;
      if (p.callId && !knownCalls.current.has(p.callId) && Date.now() - lookedAt.current > 1000) {
        lookedAt.current = Date.now();
        void load();
      }
      setDetail((d) => {
        if (!d) return d;
        const runs = d.runs.map((r): RunInfo =>
          r.id === p.runId ? { ...r, status: 'running', progress: p.fraction, message: p.message, callId: p.callId ?? r.callId } : r,
        );
        return { ...d, runs, campaign: { ...d.campaign, progress: campaignProgress(runs) } };
      });
    },
    [id, setDetail, load],
  );
  useLabLive(load, onProgress, (c) => c.campaignId === Number(id) || c.campaignId === 0);

  const { act: change, error: actionError } = useAction(load);
  const act = (path: string) => change(() => apiSend('POST', path));

  if (error instanceof ApiError && error.status === 404) {
    return (
      <main>
        <Empty>
          No campaign #{id} in this project. <Link to="/lab">All experiments</Link>
        </Empty>
      </main>
    );
  }
  if (error && !detail)
    return (
      <main>
        <ErrorBox error={error} onRetry={() => void load()} />
      </main>
    );
  if (!detail)
    return (
      <main>
        <Loading what="the campaign" />
      </main>
    );

  const { campaign, runs, variants } = detail;
  const scenario = detail.scenario as Scenario;
  const active = campaign.status === 'running' || campaign.status === 'queued';
  const running = runs.filter((r): r is RunInfo & { callId: string } => r.status === 'running' && r.callId !== null);
  const doneRuns = runs.filter(finished);
  const exportRows = runs.map((r) => ({
    campaign: `#${campaign.id} ${campaign.name} (${variants[r.variant]})`,
    run: r.id,
    repetition: r.repetition,
    status: r.status,
    headline: finished(r) ? headline(readOutcome(r.outcome)) : null,
  }));
  const perRun = doneRuns.map((r) => ({ run: r, h: headline(readOutcome(r.outcome)) }));
  const metrics = shownMetrics(
    perRun.map((x) => x.h),
    null,
  );

  return (
    <main>
      <div className="toolbar">
        <Link to="/lab">← Experiments</Link>
        <h1 data-testid="campaign-title">
          #{campaign.id} {campaign.name}
        </h1>
        <span data-testid="campaign-status">
          <StatusBadge status={campaign.status} />
        </span>
        <ProgressBar fraction={campaign.progress} label="campaign progress" />
        {active && mayDo('run-lab') && (
          <button type="button" onClick={() => void act(`/lab/campaigns/${campaign.id}/cancel`)}>
            Cancel campaign
          </button>
        )}
        <button
          type="button"
          onClick={() => download(`campaign-${campaign.id}.csv`, 'text/csv', toCsv(exportRows))}
          disabled={!doneRuns.length}
        >
          Export CSV
        </button>
        <button
          type="button"
          onClick={() =>
            download(`campaign-${campaign.id}.json`, 'application/json', JSON.stringify({ ...detail, judged: undefined }, null, 2))
          }
        >
          Export JSON
        </button>
      </div>
      <p className="muted" data-testid="campaign-about">
        Scenario {scenario.id} ({scenario.source ?? 'own file'}) at time scale ×{campaign.timeScale} (
        {formatDuration(scenario.durationS * campaign.timeScale * 1000)} per run), created {formatDateTime(campaign.createdAt)} ({timeZone}
        ). Variants: {variants.join(', ')}. {scenario.paper?.findings.length ? `Paper: ${scenario.paper.findings.join(' ')}` : ''}
      </p>
      {timeScaleWarnings(scenario, campaign.timeScale).map((w) => (
        <p key={w} className="warning" role="note" data-testid="time-scale-warning">
          {w} The figures below are of such runs.
        </p>
      ))}
      {actionError && (
        <p className="error-text" role="alert">
          {actionError.message}
        </p>
      )}
      {error && <ErrorBox error={error} onRetry={() => void load()} />}

      <section className="panel">
        <h2>Runs</h2>
        <table className="calls" data-testid="runs">
          <thead>
            <tr>
              <th>Run</th>
              <th>Variant</th>
              <th>Repetition</th>
              <th>State</th>
              <th>Progress</th>
              <th>Agent</th>
              <th>Started</th>
              <th>Took</th>
              <th>Calls</th>
              <th title="each call's score, 1–5, and the issues the diagnosis found in it (docs/diagnosis.md)">Diagnosis</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.id} data-testid={`run-${r.id}`}>
                <td>{r.id}</td>
                <td>{variants[r.variant]}</td>
                <td>{r.repetition}</td>
                <td>
                  <StatusBadge status={r.status} />
                  {r.error && <div className="error-text">{r.error}</div>}
                </td>
                <td>
                  <ProgressBar fraction={r.progress} label={`run ${r.id} progress`} />
                  {r.status === 'running' && r.message && <div className="muted">{r.message}</div>}
                </td>
                <td>{r.agent ?? '–'}</td>
                <td>{r.startedAt ? formatDateTime(r.startedAt) : '–'}</td>
                <td>{r.startedAt && r.finishedAt ? formatDuration(r.finishedAt - r.startedAt) : '–'}</td>
                <td>
                  {(r.callIds.length ? r.callIds : r.callId ? [r.callId] : []).map((c) => (
                    <div key={c}>
                      <Link to={`/calls/${encodeURIComponent(c)}`}>{c}</Link>
                    </div>
                  ))}
                </td>
                <td>
                  {(r.callIds.length ? r.callIds : r.callId ? [r.callId] : []).map((c) => {
                    const call = detail.judged.get(c);
                    return (
                      <div key={c} data-testid={`run-diagnosis-${r.id}`}>
                        {call ? (
                          <>
                            {formatNumber(call.score, 'of 5', 1)}{' '}
                            {call.issues.map((i) => (
                              <span key={i.type} className={`issue-badge ${i.severity}`}>
                                {issueName(i.type)}
                              </span>
                            ))}
                          </>
                        ) : (
                          '–'
                        )}
                      </div>
                    );
                  })}
                </td>
                <td>
                  {(r.status === 'queued' || r.status === 'running') && mayDo('run-lab') && (
                    <button type="button" className="link" onClick={() => void act(`/lab/runs/${r.id}/cancel`)}>
                      Cancel
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {campaign.status === 'queued' && (
          <p className="muted">Waiting for a lab agent to take the first run. See the agents on the Experiments page.</p>
        )}
      </section>

      {running.map((r) => (
        <section className="panel" key={r.id}>
          <h2>Live: run {r.id}</h2>
          {detail.judged.has(r.callId) ? <LiveRun run={r} /> : <Loading what={`the first samples of call ${r.callId}`} />}
        </section>
      ))}

      <section className="panel" data-testid="results">
        <h2>Results over repetitions</h2>
        {variants.map((label, v) => (
          <div key={label}>
            {variants.length > 1 && <h3>{label}</h3>}
            <OverRepetitions
              headlines={perRun.filter((x) => x.run.variant === v).map((x) => x.h)}
              scenario={scenario}
              testId={`results-variant-${v}`}
            />
          </div>
        ))}
      </section>

      {doneRuns.length > 0 && (
        <section className="panel" data-testid="plots">
          <h2>Plots over repetitions</h2>
          {variants.map((label, v) => (
            <div key={label}>
              {variants.length > 1 && <h3>{label}</h3>}
              <RunPlots
                runs={doneRuns.filter((r) => r.variant === v).map((r) => readOutcome(r.outcome))}
                scale={campaign.timeScale}
                scenario={scenario}
                testId={`plots-variant-${v}`}
                diagnoses={detail.diagnoses}
              />
            </div>
          ))}
        </section>
      )}

      {perRun.length > 0 && (
        <section className="panel">
          <h2>Per run</h2>
          <table className="calls">
            <thead>
              <tr>
                <th>Run</th>
                {metrics.map((m) => (
                  <th key={m.key}>
                    {m.label} {m.unit && <span className="unit">({m.unit})</span>}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {perRun.map(({ run, h }) => (
                <tr key={run.id}>
                  <td>
                    {run.id} ({variants[run.variant]}, #{run.repetition})
                  </td>
                  {metrics.map((m) => (
                    <td key={m.key}>{h[m.key] === null ? '–' : h[m.key]!.toFixed(m.digits)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          <p className="muted">Open a run's call for set-versus-measured charts over time.</p>
        </section>
      )}
    </main>
  );
}
