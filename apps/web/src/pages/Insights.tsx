import { INSIGHT_BREAKDOWNS, type Insights as InsightsData } from '@rtcscope/protocol';
import { useCallback, useMemo, useState } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { Empty, ErrorBox, Loading } from '../components/Status.js';
import { apiGet } from '../lib/api.js';
import { issueName } from '../lib/diagnosis.js';
import { formatDateTime, formatNumber, timeZone } from '../lib/format.js';
import { useLoad } from '../lib/hooks.js';

const PERIODS = [
  { label: 'Last 24 hours', ms: 86_400_000, bucket: 'hour' },
  { label: 'Last 7 days', ms: 7 * 86_400_000, bucket: 'day' },
  { label: 'Last 30 days', ms: 30 * 86_400_000, bucket: 'day' },
] as const;

const BREAKDOWN_NAMES: Record<(typeof INSIGHT_BREAKDOWNS)[number], string> = {
  none: 'nothing (the whole fleet)',
  browser: 'browser',
  browserVersion: 'browser version',
  os: 'operating system',
  deviceType: 'device type',
  sdkVersion: 'SDK version',
  path: 'path (candidate type / protocol)',
};

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#4b5563', '#ca8a04'];

/** The fleet's call quality over a period, broken down, from participants' summaries. */
export function Insights() {
  const [period, setPeriod] = useState(1);
  const [breakdown, setBreakdown] = useState<string>('browser');
  const [metadataKey, setMetadataKey] = useState('');
  const asked = breakdown === 'metadata' ? (metadataKey.trim() ? `metadata:${metadataKey.trim()}` : 'none') : breakdown;
  const fetchInsights = useCallback(() => {
    const p = PERIODS[period]!;
    return apiGet<InsightsData>(`/insights?${new URLSearchParams({ from: String(Date.now() - p.ms), breakdown: asked, bucket: p.bucket })}`);
  }, [period, asked]);
  const { data, error, reload } = useLoad(fetchInsights, 300);

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
        <label>
          Broken down by{' '}
          <select value={breakdown} onChange={(e) => setBreakdown(e.target.value)} data-testid="breakdown">
            {INSIGHT_BREAKDOWNS.map((b) => (
              <option key={b} value={b}>
                {BREAKDOWN_NAMES[b]}
              </option>
            ))}
            <option value="metadata">a metadata key…</option>
          </select>
        </label>
        {breakdown === 'metadata' && <input value={metadataKey} onChange={(e) => setMetadataKey(e.target.value)} placeholder="e.g. appVersion" aria-label="Metadata key" />}
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
                <XAxis dataKey="ts" type="number" scale="time" domain={['dataMin', 'dataMax']} tickFormatter={(ts: number) => formatDateTime(ts)} />
                <YAxis domain={[1, 5]} label={{ value: 'score (1–5)', angle: -90, position: 'insideLeft' }} />
                <Tooltip labelFormatter={(ts) => formatDateTime(Number(ts))} formatter={(v) => formatNumber(Number(v), '', 2)} />
                <Legend />
                {chart.segments.map((s, k) => (
                  <Line key={s} dataKey={s} stroke={COLORS[k % COLORS.length]} dot connectNulls isAnimationActive={false} />
                ))}
              </LineChart>
            </ResponsiveContainer>
          </section>
          <table className="calls" data-testid="insights-table">
            <thead>
              <tr>
                <th>{breakdown === 'none' ? 'Fleet' : BREAKDOWN_NAMES[breakdown as (typeof INSIGHT_BREAKDOWNS)[number]] ?? metadataKey}</th>
                <th>Calls</th>
                <th>Participants</th>
                <th>Participant-minutes</th>
                <th title="p50 / p90 over participants">Score p50 / p90</th>
                <th>RTT p50 / p90 (ms)</th>
                <th>Loss p50 / p90 (%)</th>
                <th>Set-up p50 (ms)</th>
                <th title="share of calls with it">Issues (share of calls)</th>
              </tr>
            </thead>
            <tbody>
              {data.segments.map((s) => (
                <tr key={String(s.segment)} data-testid="insights-row">
                  <td>{s.segment ?? 'unknown'}</td>
                  <td>{s.calls}</td>
                  <td>{s.participants}</td>
                  <td>{formatNumber(s.minutes, '', 0)}</td>
                  <td>
                    {formatNumber(s.metrics.score?.p50, '', 2)} / {formatNumber(s.metrics.score?.p90, '', 2)}
                  </td>
                  <td>
                    {formatNumber(s.metrics.rttMs?.p50, '', 0)} / {formatNumber(s.metrics.rttMs?.p90, '', 0)}
                  </td>
                  <td>
                    {formatNumber(s.metrics.lossPct?.p50, '', 1)} / {formatNumber(s.metrics.lossPct?.p90, '', 1)}
                  </td>
                  <td>{formatNumber(s.metrics.setupMs?.p50, '', 0)}</td>
                  <td>
                    {Object.entries(s.issues)
                      .sort(([, a], [, b]) => b.callsShare - a.callsShare)
                      .map(([type, share]) => (
                        <span key={type} className="issue-badge warning" title={`${Math.round(share.minutesShare * 100)} % of participant-minutes`}>
                          {issueName(type)} {Math.round(share.callsShare * 100)} %
                        </span>
                      ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </main>
  );
}
