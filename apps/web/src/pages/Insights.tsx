import { type CallSource, INSIGHT_BREAKDOWNS, type Insights as InsightsData } from '@rtcscope/protocol';
import { VERDICT_RULE } from '@rtcscope/metrics';
import { useCallback, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { BreakdownPicker, useBreakdown } from '../components/BreakdownPicker.js';
import { Empty, ErrorBox, Loading } from '../components/Status.js';
import { apiGet } from '../lib/api.js';
import { PALETTE } from '../lib/calldata.js';
import { issueName } from '../lib/diagnosis.js';
import { formatDateTime, formatNumber, formatUtcDate, timeZone } from '../lib/format.js';
import { useLoad } from '../lib/hooks.js';

const PERIODS = [
  { label: 'Last 24 hours', ms: 86_400_000, bucket: 'hour' },
  { label: 'Last 7 days', ms: 7 * 86_400_000, bucket: 'day' },
  { label: 'Last 30 days', ms: 30 * 86_400_000, bucket: 'day' },
] as const;

/** The same number in the period before, under this one's. */
function Was({ value }: { value: string }) {
  return <div className="muted small">before: {value}</div>;
}

/** The fleet's call quality over a period, broken down, from participants' summaries. */
export function Insights() {
  const [period, setPeriod] = useState(1);
  const choice = useBreakdown('browser');
  const { asked } = choice;
  const [compare, setCompare] = useState(false);
  const [source, setSource] = useState<CallSource>('live');
  const fetchInsights = useCallback(async () => {
    const p = PERIODS[period]!;
    const to = Date.now();
    const of = (from: number, until: number) =>
      apiGet<InsightsData>(
        `/insights?${new URLSearchParams({ from: String(from), to: String(until), breakdown: asked, bucket: p.bucket, source })}`,
      );
    const current = await of(to - p.ms, to);
    // The period before, as long as the one the server took (a long one is taken to whole UTC days), ending where it begins.
    const previous = compare ? await of(2 * current.from - current.to, current.from) : null;
    return { ...current, previous };
  }, [period, asked, compare, source]);
  const { data, error, reload } = useLoad(fetchInsights, 300);
  const formatBucket = (ts: number) => (data?.bucket === 'day' ? formatUtcDate(ts) : formatDateTime(ts));
  const before = useMemo(() => new Map((data?.previous?.segments ?? []).map((s) => [s.segment, s])), [data]);
  const segmentName = asked === 'none' ? 'Fleet' : choice.label;
  const drill = (segment: string | null, issue?: string) =>
    `/?${new URLSearchParams({ breakdown: asked, segment: segment ?? '', label: segmentName, from: String(data!.from), to: String(data!.to), source, ...(issue ? { issue } : {}) })}`;

  const chart = useMemo(() => {
    if (!data) return { rows: [], segments: [] as string[] };
    const segments = [...new Set(data.overTime.map((b) => b.segment ?? 'unknown'))];
    const byTs = new Map<number, Record<string, number | null>>();
    for (const b of data.overTime) {
      const row = byTs.get(b.ts) ?? { ts: b.ts };
      row[b.segment ?? 'unknown'] = b.score.p50;
      byTs.set(b.ts, row);
    }
    return { rows: [...byTs.values()].sort((a, b) => a.ts! - b.ts!), segments };
  }, [data]);

  return (
    <main>
      <div className="toolbar">
        <h1>Insights</h1>
        <select value={period} onChange={(e) => setPeriod(Number(e.target.value))} aria-label="Period">
          {PERIODS.map((p, k) => (
            <option key={p.label} value={k}>
              {p.label}
            </option>
          ))}
        </select>
        <BreakdownPicker choice={choice} options={INSIGHT_BREAKDOWNS} placeholder="e.g. appVersion" testId="breakdown" />
        <select
          value={source}
          onChange={(e) => setSource(e.target.value as CallSource)}
          aria-label="Calls from"
          title="live traffic is production's, the lab's runs apart; imported recordings count by the dates they were recorded"
        >
          <option value="live">live traffic (no lab runs)</option>
          <option value="lab">lab runs</option>
          <option value="imported">imported recordings</option>
          <option value="all">every call</option>
        </select>
        <label>
          <input type="checkbox" checked={compare} onChange={(e) => setCompare(e.target.checked)} /> compare with the period before
        </label>
      </div>
      {error && <ErrorBox error={error} onRetry={() => void reload()} />}
      {!data && !error && <Loading what="insights" />}
      {data && data.segments.length === 0 && <Empty>No calls in this period yet. Calls appear here within a minute of starting.</Empty>}
      {data && data.segments.length > 0 && (
        <>
          <section className="panel">
            <h2>
              Median score per {PERIODS[period]!.bucket} <span className="unit">(1–5; buckets in UTC, times in {timeZone})</span>
            </h2>
            <ResponsiveContainer width="100%" height={220}>
              <LineChart data={chart.rows} margin={{ top: 8, right: 16, bottom: 4, left: 8 }}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis
                  dataKey="ts"
                  type="number"
                  scale="time"
                  domain={['dataMin', 'dataMax']}
                  tickFormatter={(ts: number) => formatBucket(ts)}
                />
                <YAxis domain={[1, 5]} label={{ value: 'score (1–5)', angle: -90, position: 'insideLeft' }} />
                <Tooltip labelFormatter={(ts) => formatBucket(Number(ts))} formatter={(v) => formatNumber(Number(v), '', 2)} />
                <Legend />
                {chart.segments.map((s, k) => (
                  <Line key={s} dataKey={s} stroke={PALETTE[k % PALETTE.length]} dot connectNulls isAnimationActive={false} />
                ))}
              </LineChart>
            </ResponsiveContainer>
          </section>
          <table className="calls" data-testid="insights-table">
            <thead>
              <tr>
                <th>{segmentName}</th>
                <th>Calls</th>
                <th>Participants</th>
                <th>Participant-minutes</th>
                <th title={VERDICT_RULE}>Calls poor / fair</th>
                <th title="over participants, each its call's score: the median, then the score a tenth of them stayed under (the worse tail)">
                  Score p50 / p10
                </th>
                <th title="over participants: the median, then the RTT a tenth of them were above (the worse tail)">RTT p50 / p90 (ms)</th>
                <th title="over participants: the median, then the loss a tenth of them were above (the worse tail)">Loss p50 / p90 (%)</th>
                <th>Set-up p50 (ms)</th>
                <th title="participants who never connected">Set-up failures</th>
                <th title="share of calls with it">Issues (share of calls)</th>
              </tr>
            </thead>
            <tbody>
              {data.segments.map((s) => {
                const was = before.get(s.segment);
                return (
                  <tr key={String(s.segment)} data-testid="insights-row">
                    <td>
                      <Link to={drill(s.segment)} title="the calls behind it">
                        {s.segment ?? 'unknown'}
                      </Link>
                    </td>
                    <td>
                      {s.calls}
                      {data.previous && <Was value={was ? String(was.calls) : '–'} />}
                    </td>
                    <td>{s.participants}</td>
                    <td>{formatNumber(s.minutes, '', 0)}</td>
                    <td
                      data-testid="insights-verdicts"
                      title={`good ${Math.round(s.verdicts.good * 100)} %, not judged ${Math.round(s.verdicts.unknown * 100)} %`}
                    >
                      <span className="quality poor">{Math.round(s.verdicts.poor * 100)} %</span> /{' '}
                      <span className="quality fair">{Math.round(s.verdicts.fair * 100)} %</span>
                      {data.previous && (
                        <Was value={was ? `${Math.round(was.verdicts.poor * 100)} % / ${Math.round(was.verdicts.fair * 100)} %` : '–'} />
                      )}
                    </td>
                    <td>
                      {formatNumber(s.metrics.score?.p50, '', 2)} / {formatNumber(s.metrics.score?.p10, '', 2)}
                      {data.previous && (
                        <Was
                          value={
                            was ? `${formatNumber(was.metrics.score?.p50, '', 2)} / ${formatNumber(was.metrics.score?.p10, '', 2)}` : '–'
                          }
                        />
                      )}
                    </td>
                    <td>
                      {formatNumber(s.metrics.rttMs?.p50, '', 0)} / {formatNumber(s.metrics.rttMs?.p90, '', 0)}
                    </td>
                    <td>
                      {formatNumber(s.metrics.lossPct?.p50, '', 1)} / {formatNumber(s.metrics.lossPct?.p90, '', 1)}
                      {data.previous && (
                        <Was
                          value={
                            was
                              ? `${formatNumber(was.metrics.lossPct?.p50, '', 1)} / ${formatNumber(was.metrics.lossPct?.p90, '', 1)}`
                              : '–'
                          }
                        />
                      )}
                    </td>
                    <td>{formatNumber(s.metrics.setupMs?.p50, '', 0)}</td>
                    <td>
                      {s.setupFailures} ({formatNumber((100 * s.setupFailures) / s.participants, '%', 1)})
                      {data.previous && (
                        <Was
                          value={was ? `${was.setupFailures} (${formatNumber((100 * was.setupFailures) / was.participants, '%', 1)})` : '–'}
                        />
                      )}
                    </td>
                    <td>
                      {Object.entries(s.issues)
                        .sort(([, a], [, b]) => b.callsShare - a.callsShare)
                        .map(([type, share]) => (
                          <Link
                            key={type}
                            to={drill(s.segment, type)}
                            className="issue-badge warning"
                            title={`${Math.round(share.minutesShare * 100)} % of participant-minutes; click for the calls`}
                          >
                            {issueName(type)} {Math.round(share.callsShare * 100)} %
                          </Link>
                        ))}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </>
      )}
    </main>
  );
}
