import { DETECTORS } from '@rtcscope/diagnosis';
import { CALL_SOURCES, type CallList, type CallSource } from '@rtcscope/protocol';
import { useCallback, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { CallMeans, CallMeansHeader, CallMeansNote } from '../components/CallMeans.js';
import { ImportedBadge } from '../components/ImportedBadge.js';
import { ImportRecording } from '../components/ImportRecording.js';
import { Listing } from '../components/Status.js';
import { apiGet } from '../lib/api.js';
import { issueName } from '../lib/diagnosis.js';
import { formatDateTime, formatDuration, formatNumber, timeZone } from '../lib/format.js';
import { useLive, useLoad, useNow, useSoon, useUrlFilter } from '../lib/hooks.js';

const RANGES = [
  { label: 'Last hour', ms: 3_600_000 },
  { label: 'Last 24 hours', ms: 86_400_000 },
  { label: 'Last 7 days', ms: 7 * 86_400_000 },
  { label: 'All time', ms: 0 },
] as const;

/** The detectors' issue types, for the filter. */
const ISSUE_TYPES = DETECTORS.map((d) => d.type).sort();

/** The insights' drill-down, from the URL: the calls behind a segment of a breakdown in a period. */
function useDrillDown() {
  const [search, setSearch] = useSearchParams();
  const drill = useMemo(() => {
    const breakdown = search.get('breakdown');
    if (breakdown === null) return null;
    return {
      breakdown,
      segment: search.get('segment') ?? '',
      label: search.get('label') ?? breakdown,
      from: Number(search.get('from') ?? 0),
      to: search.get('to') === null ? null : Number(search.get('to')),
      source: search.get('source') ?? 'live',
    };
  }, [search]);
  return { drill, clear: () => setSearch({}) };
}

export function CallsList() {
  const { drill, clear } = useDrillDown();
  // The filters live in the URL: a reload, a link to a colleague or Back keeps them.
  const [rangeText, setRange] = useUrlFilter('range', String(86_400_000));
  const [text, setText] = useUrlFilter('q', '');
  const [issue, setIssue] = useUrlFilter('issue', '');
  const [sort, setSort] = useUrlFilter('sort', 'recent');
  const [maxScoreText, setMaxScore] = useUrlFilter('maxScore', '0');
  const [sourceText, setSource] = useUrlFilter('source', 'all');
  const [importing, setImporting] = useState(false);
  const range = Number(rangeText) || 0;
  const byScore = sort === 'score';
  const maxScore = Number(maxScoreText) || 0;
  const source: CallSource = (CALL_SOURCES as readonly string[]).includes(sourceText) ? (sourceText as CallSource) : 'all';
  const fetchCalls = useCallback(async () => {
    const params = new URLSearchParams({ limit: '200' });
    if (drill) {
      params.set('breakdown', drill.breakdown);
      params.set('segment', drill.segment);
      params.set('from', String(drill.from));
      if (drill.to !== null) params.set('to', String(drill.to));
      params.set('source', drill.source);
    } else {
      if (range) params.set('from', String(Date.now() - range));
      params.set('source', source);
    }
    if (text.trim()) params.set('q', text.trim());
    if (issue) params.set('issue', issue);
    // The server sorts and filters ended calls by the score stored when they ended: the worst of the whole range come first.
    if (byScore) params.set('sort', 'score');
    if (maxScore) params.set('maxScore', String(maxScore));
    return (await apiGet<CallList>(`/calls?${params}`)).calls;
  }, [range, text, issue, byScore, maxScore, drill, source]);
  // Typing in the filter settles for 200 ms before the list is asked for again.
  const { data: calls, error, reload: load, setData: setCalls } = useLoad(fetchCalls, 200);
  const changed = useSoon(load, 250);
  useLive(
    { calls: true },
    {
      'calls-changed': changed,
      activity: ({ callId, lastSeenAt }) => setCalls((cs) => cs?.map((c) => (c.id === callId ? { ...c, lastSeenAt } : c)) ?? cs),
    },
    // After a server restart, catch up on what changed meanwhile.
    changed,
  );

  // Worst score first when asked (live calls too, by their score so far); calls without a score yet go last.
  const ordered = useMemo(
    () => (byScore ? [...(calls ?? [])].sort((a, b) => (a.score ?? 6) - (b.score ?? 6)) : (calls ?? [])),
    [calls, byScore],
  );
  const live = useMemo(() => ordered.filter((c) => c.state === 'live'), [ordered]);
  const past = useMemo(() => ordered.filter((c) => c.state === 'ended'), [ordered]);
  const now = useNow(1000, live.length > 0);

  return (
    <main>
      <div className="toolbar">
        <h1>Calls</h1>
        <input
          type="search"
          placeholder="Filter by call or participant id"
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-label="Filter calls"
        />
        <select value={issue} onChange={(e) => setIssue(e.target.value)} aria-label="Calls with issue">
          <option value="">with any issue or none</option>
          {ISSUE_TYPES.map((t) => (
            <option key={t} value={t}>
              with {issueName(t).toLowerCase()}
            </option>
          ))}
        </select>
        <select
          value={maxScore}
          onChange={(e) => setMaxScore(e.target.value)}
          aria-label="Calls with score"
          title="ended calls whose score (1–5) is at most this"
        >
          <option value={0}>any score</option>
          {[4, 3.5, 3, 2].map((m) => (
            <option key={m} value={m}>
              ended, score ≤ {m}
            </option>
          ))}
        </select>
        <label className="check">
          <input type="checkbox" checked={byScore} onChange={(e) => setSort(e.target.checked ? 'score' : 'recent')} /> worst score first
        </label>
        <select
          value={range}
          onChange={(e) => setRange(e.target.value)}
          aria-label="Time range"
          disabled={drill !== null}
          title={drill ? 'the period is the one Insights chose' : undefined}
        >
          {RANGES.map((r) => (
            <option key={r.label} value={r.ms}>
              {r.label}
            </option>
          ))}
        </select>
        <select
          value={source}
          onChange={(e) => setSource(e.target.value)}
          aria-label="Calls from"
          disabled={drill !== null}
          title="live traffic is production's (the lab's runs apart); imported recordings are listed by when they were imported: their recorded dates may be years back"
        >
          <option value="all">every call</option>
          <option value="live">live traffic only (no lab runs)</option>
          <option value="lab">lab runs only</option>
          <option value="imported">imported recordings only</option>
        </select>
        <button type="button" onClick={() => setImporting((v) => !v)} aria-expanded={importing} data-testid="toggle-import">
          Import recording…
        </button>
      </div>
      {drill && (
        <p className="zoomed" data-testid="drill-down">
          Calls with a participant whose {drill.label} is <b>{drill.segment || 'unknown'}</b>
          {issue && <> and who had {issueName(issue).toLowerCase()}</>}, who joined {formatDateTime(drill.from)} –{' '}
          {drill.to === null ? 'now' : formatDateTime(drill.to)} (from Insights; the newest 200).{' '}
          <button type="button" className="link" onClick={clear}>
            Show all calls
          </button>
        </p>
      )}
      {importing && <ImportRecording onImported={changed} />}
      <Listing
        items={calls}
        error={error}
        what="calls"
        onRetry={() => void load()}
        empty={
          issue || maxScore || text.trim() ? (
            'No calls in this range match these filters.'
          ) : (
            <>
              No calls in this range yet. Start one from the <Link to="/demo">demo page</Link>, or add the SDK to your app.
            </>
          )
        }
      >
        {() => (
          <table className="calls" data-testid="calls-table">
            <thead>
              <tr>
                <th>Call</th>
                <th>State</th>
                <th>Started ({timeZone})</th>
                <th>Duration</th>
                <th>Participants</th>
                <th title="the mean over the call's 5-s windows of its participants' scores, 1–5 (docs/diagnosis.md)">Score (1–5)</th>
                <th>Issues</th>
                <CallMeansHeader />
              </tr>
            </thead>
            <tbody>
              {[...live, ...past].map((c) => (
                <tr key={c.id} className={c.state} data-testid={`call-row-${c.id}`}>
                  <td>
                    <Link to={`/calls/${encodeURIComponent(c.id)}`}>{c.id}</Link>
                    <ImportedBadge metadata={c.metadata} />
                  </td>
                  <td>
                    <span className={`badge ${c.state}`}>{c.state}</span>
                  </td>
                  <td>{formatDateTime(c.startedAt)}</td>
                  <td>{formatDuration((c.endedAt ?? (c.state === 'live' ? Math.max(now, c.lastSeenAt) : c.lastSeenAt)) - c.startedAt)}</td>
                  <td title={c.participants.join(', ')}>{c.participants.length}</td>
                  <td data-testid="call-score">{formatNumber(c.score, '', 1)}</td>
                  <td>
                    {c.issues.map((i) => (
                      <span
                        key={i.type}
                        className={`issue-badge ${i.severity}`}
                        title={`${i.count} × ${issueName(i.type)}, the worst ${i.severity}`}
                      >
                        {issueName(i.type)}
                        {i.count > 1 ? ` ×${i.count}` : ''}
                      </span>
                    ))}
                  </td>
                  <CallMeans call={c} />
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Listing>
      {calls && calls.length > 0 && <CallMeansNote />}
    </main>
  );
}
