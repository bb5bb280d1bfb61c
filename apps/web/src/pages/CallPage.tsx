import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import type { CallIssue } from '@rtcscope/protocol';
import { CallSummaryTable } from '../components/CallSummaryTable.js';
import { DiagnosisSummary } from '../components/DiagnosisSummary.js';
import { IssueLanes } from '../components/IssueLanes.js';
import { EventList } from '../components/EventList.js';
import { ExportCall } from '../components/ExportCall.js';
import { ClientLabel } from '../components/ClientLabel.js';
import { ImportedBadge } from '../components/ImportedBadge.js';
import { OutOfRangeNote } from '../components/OutOfRangeNote.js';
import { StreamStates } from '../components/StreamStates.js';
import { DataConnections } from '../components/DataConnections.js';
import { WhoReceivesWhom } from '../components/WhoReceivesWhom.js';
import { SfuMembers } from '../components/SfuMembers.js';
import { LINE_STYLE, MetricChart } from '../components/MetricChart.js';
import { Empty, ErrorBox, Loading } from '../components/Status.js';
import { ApiError } from '../lib/api.js';
import type { Chart } from '../lib/calldata.js';
import { formatDateTime, formatDuration, formatTime, timeZone } from '../lib/format.js';
import { useNow } from '../lib/hooks.js';
import { useCallData } from '../lib/useCallData.js';

/** Events worth a mark on the time axis: state changes and track changes, not every metadata update. */
const MARKED = new Set([
  'connection-state',
  'ice-connection-state',
  'track-added',
  'track-ended',
  'track-muted',
  'candidate-pair-changed',
  'ice-candidate-error',
]);

export function CallPage() {
  const { callId = '' } = useParams();
  const { detail, snapshot, error, load } = useCallData(callId);
  const [hidden, setHidden] = useState<Set<string>>(new Set());
  const [hiddenParticipants, setHiddenParticipants] = useState<Set<string>>(new Set());
  const [selected, setSelected] = useState<CallIssue | null>(null);

  const live = detail?.call.state === 'live';
  const now = useNow(1000, live);

  const view = useMemo(() => {
    if (!snapshot) return null;
    const visible = (c: Chart): Chart => ({ rows: c.rows, series: c.series.filter((s) => !hiddenParticipants.has(s.participantId)) });
    const { charts } = snapshot;
    return {
      rate: visible(charts.rate),
      rtt: visible(charts.rtt),
      fps: visible(charts.fps),
      resolution: visible(charts.resolution),
      loss: visible(charts.loss),
      jitter: visible(charts.jitter),
      fairness: charts.fairness,
      score: visible(charts.score),
      marks: snapshot.events.filter((e) => MARKED.has(e.type) && !hiddenParticipants.has(e.participantId)),
    };
  }, [snapshot, hiddenParticipants]);

  if (error instanceof ApiError && error.status === 404 && !detail) {
    return (
      <main>
        <Empty>
          No call “{callId}” in this project yet. This page shows it as soon as its first sample arrives. <Link to="/">All calls</Link>
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
  if (!detail || !snapshot || !view)
    return (
      <main>
        <Loading what="the call" />
      </main>
    );

  const { call } = detail;
  const end = call.endedAt ?? (live ? Math.max(now, call.lastSeenAt) : call.lastSeenAt);
  // A selected issue: its time and half a minute around it, at most the call.
  const domain: [number, number] = selected
    ? [Math.max(call.startedAt, selected.start - 30_000), Math.min(end, (selected.end ?? end) + 30_000)]
    : [call.startedAt, end];
  const highlight = selected
    ? ((selected.streamId !== null
        ? snapshot.streamLabels.get(selected.streamId)
        : selected.connectionId !== null
          ? snapshot.connectionLabels.get(selected.connectionId)
          : null) ?? null)
    : null;
  const toggle = (key: string) =>
    setHidden((h) => {
      const next = new Set(h);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const common = { domain, events: view.marks, hidden, onToggle: toggle, colors: snapshot.colors, highlight };

  return (
    <main>
      <div className="toolbar">
        <Link to="/">← Calls</Link>
        <h1 data-testid="call-title">{call.id}</h1>
        <span className={`badge ${call.state}`} data-testid="call-state">
          {call.state}
        </span>
        <ImportedBadge metadata={call.metadata} detailed />
        <span className="muted">
          started {formatDateTime(call.startedAt)} ({timeZone}) · {formatDuration(end - call.startedAt)}
          {snapshot.bucketMs > 1000 && ` · history averaged over ${snapshot.bucketMs / 1000} s`}
        </span>
        <ExportCall callId={call.id} />
      </div>
      {error && <ErrorBox error={error} onRetry={() => void load()} />}
      <div className="participants">
        Participants:
        {detail.participants.map((p) => (
          <label key={p.id} className="chip">
            <input
              type="checkbox"
              checked={!hiddenParticipants.has(p.id)}
              onChange={() =>
                setHiddenParticipants((h) => {
                  const next = new Set(h);
                  if (next.has(p.id)) next.delete(p.id);
                  else next.add(p.id);
                  return next;
                })
              }
            />
            <span className="swatch" style={{ background: snapshot.colors.get(p.id) }} />
            {p.id} <ClientLabel client={p.client} /> {p.leftAt ? <span className="muted">(left {formatTime(p.leftAt)})</span> : null}
          </label>
        ))}
        <span className="muted">Click a legend entry to hide or show one line.</span>
      </div>
      <div className="line-key" data-testid="line-key">
        Lines: colour = participant;
        {Object.entries(LINE_STYLE).map(([kind, style]) => (
          <span key={kind} className="key-item">
            <svg width="28" height="8" aria-hidden="true">
              <line
                x1="0"
                y1="4"
                x2="28"
                y2="4"
                stroke="#374151"
                strokeWidth={style.width}
                strokeDasharray={style.dash}
                strokeOpacity={style.opacity ?? 1}
              />
            </svg>
            {style.what}
          </span>
        ))}
        <span className="key-item">
          <svg width="10" height="14" aria-hidden="true">
            <line x1="5" y1="0" x2="5" y2="14" stroke="#9ca3af" strokeDasharray="2 4" />
          </svg>
          an event (connection or track change, listed below)
        </span>
      </div>
      <DiagnosisSummary
        issues={snapshot.issues}
        now={now}
        score={snapshot.score}
        lowers={snapshot.lowers}
        heard={snapshot.heard}
        onSelect={setSelected}
      />
      <IssueLanes
        issues={snapshot.issues.filter((i) => !hiddenParticipants.has(i.participantId))}
        // The SFU has a lane of its own when a fault was placed there (it reports nothing itself).
        participants={[...new Set([...detail.participants.map((p) => p.id), ...snapshot.issues.map((i) => i.participantId)])].filter(
          (p) => !hiddenParticipants.has(p),
        )}
        domain={[call.startedAt, end]}
        now={now}
        live={live}
        colors={snapshot.colors}
        selected={selected?.id ?? null}
        onSelect={setSelected}
      />
      {selected && (
        <p className="zoomed" data-testid="zoomed">
          Charts zoomed to the {selected.type} of {selected.participantId}
          {highlight ? `; its line “${highlight}” stands out` : ''}.{' '}
          <button type="button" className="link" onClick={() => setSelected(null)}>
            Show the whole call
          </button>
        </p>
      )}
      <CallSummaryTable summary={snapshot.summary} colors={snapshot.colors} hidden={hiddenParticipants} />
      <OutOfRangeNote detail={detail} />
      <StreamStates labels={snapshot.streamLabels} states={snapshot.states} unscorable={snapshot.unscorable} />
      <DataConnections detail={detail} events={snapshot.events} />
      <WhoReceivesWhom detail={detail} colors={snapshot.colors} />
      <SfuMembers sfu={detail.sfu} colors={snapshot.colors} />
      <div className="grid">
        <MetricChart title="Score" unit="MOS, 1–5" chart={view.score} testId="chart-score" yDomain={[1, 5]} digits={2} {...common} />
        <MetricChart title="Data rate" unit="kbit/s" chart={view.rate} testId="chart-rate" digits={0} {...common} />
        <MetricChart title="Round-trip time" unit="ms" chart={view.rtt} testId="chart-rtt" {...common} />
        <MetricChart title="Frame rate" unit="fps" chart={view.fps} testId="chart-fps" {...common} />
        <MetricChart title="Resolution (frame height)" unit="px" chart={view.resolution} testId="chart-resolution" digits={0} {...common} />
        <MetricChart title="Packet loss" unit="%" chart={view.loss} testId="chart-loss" digits={2} {...common} />
        <MetricChart title="Jitter" unit="ms" chart={view.jitter} testId="chart-jitter" {...common} />
        <MetricChart
          title="Jain's fairness index"
          unit="J, 1 = fair"
          chart={view.fairness}
          testId="chart-fairness"
          yDomain={[0, 1]}
          digits={3}
          {...common}
        />
      </div>
      <EventList events={snapshot.events} colors={snapshot.colors} />
    </main>
  );
}
