import type { PrecallInsights, PrecallList, ProjectInfo } from '@rtcscope/protocol';
import { useCallback, useState } from 'react';
import { Link } from 'react-router';
import { BreakdownPicker, useBreakdown } from '../components/BreakdownPicker.js';
import { VerdictBadge } from '../components/PrecallReport.js';
import { Listing } from '../components/Status.js';
import { apiGet } from '../lib/api.js';
import { formatDateTime, formatNumber, timeZone } from '../lib/format.js';
import { useLive, useLoad, useSoon, useUrlFilter } from '../lib/hooks.js';

const WEEK_MS = 7 * 86_400_000;
const BREAKDOWNS = ['none', 'browser', 'os', 'country', 'path'] as const;
const pct = (v: number) => `${Math.round(v)} %`;
const range = (p: { p10: number; p50: number; p90: number } | null, unit: string, digits = 0) =>
  p ? `${formatNumber(p.p50, unit, digits)} (${p.p10.toFixed(digits)}–${p.p90.toFixed(digits)})` : '–';

/** The link a support engineer sends a customer: the hosted test page with the project's publishable key. */
function SendTest() {
  const fetchProject = useCallback(() => apiGet<ProjectInfo>('/project'), []);
  const { data: project } = useLoad(fetchProject);
  const [ticket, setTicket] = useState('');
  if (!project) return null;
  const query = new URLSearchParams({ key: project.ingestKey, ...(ticket.trim() ? { ticket: ticket.trim() } : {}) });
  const link = `${window.location.origin}/test?${query}`;
  return (
    <section className="panel">
      <h2>Send a customer a test</h2>
      <p className="muted">
        The page tests their camera, microphone and network in their browser and sends the result here. It carries the project's publishable
        ingest key, which can only send samples.
      </p>
      <label>
        Ticket reference (optional){' '}
        <input
          value={ticket}
          onChange={(e) => setTicket(e.target.value)}
          maxLength={128}
          placeholder="e.g. T-1234"
          data-testid="precall-ticket"
        />
      </label>
      <p>
        <code data-testid="precall-link">{link}</code>{' '}
        <button type="button" onClick={() => void navigator.clipboard?.writeText(link)}>
          Copy
        </button>
      </p>
      <p className="muted">
        In an app: <code>{"import { runPrecallTest } from '@rtcscope/sdk/precall'"}</code>, or the script{' '}
        <code>/sdk/rtcscope-precall.js</code> (global <code>RtcScopePrecall</code>).
      </p>
    </section>
  );
}

function Breakdown() {
  const choice = useBreakdown('none');
  const { asked } = choice;
  const fetchInsights = useCallback(
    () =>
      apiGet<PrecallInsights>(`/precall-tests/insights?${new URLSearchParams({ from: String(Date.now() - WEEK_MS), breakdown: asked })}`),
    [asked],
  );
  const { data, error, reload } = useLoad(fetchInsights, 300);
  return (
    <section>
      <div className="toolbar">
        <h2>Last 7 days</h2>
        <BreakdownPicker
          choice={choice}
          options={BREAKDOWNS}
          names={{ path: 'the way through TURN (UDP, TCP, TLS)' }}
          metadataHint="e.g. the network type the app sets"
          placeholder="e.g. network"
          testId="precall-breakdown"
        />
      </div>
      <Listing
        items={data?.segments}
        error={error}
        what="the breakdown"
        empty="No pre-call tests in the last 7 days."
        onRetry={() => void reload()}
      >
        {(segments) => (
          <table className="calls" data-testid="precall-insights">
            <thead>
              <tr>
                <th>{asked === 'none' ? 'All tests' : 'Segment'}</th>
                <th>Tests</th>
                <th>Good / fair / poor / failed</th>
                <th title="no server-reflexive candidate: peers reach them only through a relay">Needed TURN</th>
                <th>UDP blocked</th>
                <th>Via TCP / TLS</th>
                <th>Throughput, median (10th–90th)</th>
                <th>RTT to TURN, median (10th–90th)</th>
                <th>Loss, median (10th–90th)</th>
              </tr>
            </thead>
            <tbody>
              {segments.map((s) => (
                <tr key={s.segment ?? ''}>
                  <td>{asked === 'none' ? 'all' : (s.segment ?? 'unknown')}</td>
                  <td>{s.tests}</td>
                  <td>
                    {s.verdicts.good} / {s.verdicts.fair} / {s.verdicts.poor} / {s.verdicts.failed}
                  </td>
                  <td>{pct(s.needsTurnPct)}</td>
                  <td>{pct(s.udpBlockedPct)}</td>
                  <td>
                    {pct(s.viaTcpPct)} / {pct(s.viaTlsPct)}
                  </td>
                  <td>{range(s.throughputKbps, 'kbit/s')}</td>
                  <td>{range(s.rttMs, 'ms')}</td>
                  <td>{range(s.lossPct, '%', 1)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Listing>
    </section>
  );
}

/** Pre-call tests: sending one, how the fleet's went, and each one. */
export function Precall() {
  const [verdict, setVerdict] = useUrlFilter('verdict', '');
  const [ticket, setTicket] = useUrlFilter('ticket', '');
  const fetchTests = useCallback(async () => {
    const params = new URLSearchParams({ limit: '200' });
    if (verdict) params.set('verdict', verdict);
    if (ticket.trim()) params.set('ticket', ticket.trim());
    return (await apiGet<PrecallList>(`/precall-tests?${params}`)).tests;
  }, [verdict, ticket]);
  const { data: tests, error, reload } = useLoad(fetchTests, 200);
  const changed = useSoon(reload, 250);
  useLive({ calls: true }, { 'calls-changed': changed }, changed);

  return (
    <main>
      <div className="toolbar">
        <h1>Pre-call tests</h1>
      </div>
      <SendTest />
      <Breakdown />
      <section>
        <div className="toolbar">
          <h2>Tests</h2>
          <select value={verdict} onChange={(e) => setVerdict(e.target.value)} aria-label="Verdict">
            <option value="">every verdict</option>
            {(['good', 'fair', 'poor', 'failed'] as const).map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
          <input
            type="search"
            value={ticket}
            onChange={(e) => setTicket(e.target.value)}
            placeholder="Ticket reference"
            aria-label="Ticket"
          />
        </div>
        <Listing
          items={tests}
          error={error}
          what="pre-call tests"
          onRetry={() => void reload()}
          empty={
            ticket || verdict
              ? 'No test matches these filters.'
              : 'No pre-call test yet: send a customer the link above, or run one from your app.'
          }
        >
          {(items) => (
            <table className="calls" data-testid="precall-tests">
              <thead>
                <tr>
                  <th>When ({timeZone})</th>
                  <th>Ticket</th>
                  <th>Verdict</th>
                  <th>Browser</th>
                  <th>Way</th>
                  <th>Throughput</th>
                  <th>RTT</th>
                  <th>Loss</th>
                  <th>Found</th>
                </tr>
              </thead>
              <tbody>
                {items.map((t) => (
                  <tr key={t.callId}>
                    <td>
                      <Link to={`/precall/${encodeURIComponent(t.callId)}`}>{formatDateTime(t.createdAt)}</Link>
                    </td>
                    <td>{t.ticket ?? '–'}</td>
                    <td>
                      <VerdictBadge verdict={t.verdict} />
                    </td>
                    <td>{[t.browser, t.os, t.country].filter(Boolean).join(', ') || 'unknown'}</td>
                    <td>{t.transport?.toUpperCase() ?? 'none'}</td>
                    <td>{formatNumber(t.throughputKbps, 'kbit/s', 0)}</td>
                    <td>{formatNumber(t.rttMs, 'ms', 0)}</td>
                    <td>{formatNumber(t.lossPct, '%')}</td>
                    <td>{t.findings[0] ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Listing>
      </section>
    </main>
  );
}
