import { labSetOf, labSetsOf } from '@rtcscope/experiments';
import type { CallDetail, CallDiagnosis, CallEvent, CallEvents, CallIssue, Series } from '@rtcscope/protocol';
import { useCallback, useEffect, useRef } from 'react';
import { apiGet } from './api.js';
import {
  applyLive,
  type CallData,
  callSummary,
  type Chart,
  fairnessChart,
  fromApi,
  participantColors,
  type ParticipantSummary,
  rateChart,
  rttChart,
  streamChart,
  type StreamLife,
  streamStatesOf,
  unscorableVideo,
  withSet,
} from './calldata.js';
import {
  applyDiagnosis,
  callScore,
  type DiagnosisData,
  diagnosisFromApi,
  type HeardApart,
  heardApart,
  scoreChart,
  whatLowers,
} from './diagnosis.js';
import { useLive, useLoad, useSoon } from './hooks.js';

/** The stream fields the call page draws: asking only for these keeps long calls' history light. */
const CHARTED = ['kbps', 'rttMs', 'fps', 'height', 'lossPct', 'jitterMs'].join(',');

export interface Snapshot {
  charts: Record<'rate' | 'rtt' | 'fps' | 'resolution' | 'loss' | 'jitter' | 'fairness' | 'score', Chart>;
  issues: CallIssue[];
  score: number | null;
  /** What lowers each participant's score over the call. */
  lowers: ReturnType<typeof whatLowers>;
  /** What each participant heard, apart from what its conversation suffered. */
  heard: HeardApart[];
  /** What a line of a stream's or a connection's is called in the charts, to highlight an issue's. */
  streamLabels: Map<number, string>;
  /** Each stream's state from what the page holds (`streamStatesOf`). */
  states: Map<number, StreamLife>;
  /** Received videos no score can judge, with the fields their browser never reported. */
  unscorable: Map<number, string[]>;
  connectionLabels: Map<number, string>;
  events: CallEvent[];
  bucketMs: number;
  colors: Map<string, string>;
  summary: ParticipantSummary[];
}

/** Charts are derived from the mutable call data outside render, at most twice a second. */
function snapshotOf(d: CallData, diagnosis: DiagnosisData): Snapshot {
  const sets = labSetsOf(d.events);
  const states = streamStatesOf(d);
  return {
    states,
    unscorable: unscorableVideo(d, states),
    issues: [...diagnosis.issues.values()].sort((a, b) => a.start - b.start),
    score: callScore(diagnosis),
    lowers: whatLowers(diagnosis),
    heard: heardApart(diagnosis),
    streamLabels: new Map([...d.streams.values()].map((s) => [s.id, s.label])),
    connectionLabels: new Map([...d.connections.values()].map((c) => [c.id, `${c.label} (pair)`])),
    charts: {
      score: scoreChart(diagnosis),
      rate: withSet(rateChart(d), sets, (s) => s.rateKbps, 'cap'),
      rtt: withSet(rttChart(d), sets, (s) => s.delayMs, 'delay'),
      fps: streamChart(d, 'fps', (s) => s.kind === 'video', states),
      resolution: streamChart(d, 'height', (s) => s.kind === 'video', states),
      loss: withSet(
        streamChart(d, 'lossPct', (s) => s.direction === 'in' || s.kind === 'video', states),
        sets,
        (s) => s.lossPct,
        'loss',
      ),
      jitter: streamChart(d, 'jitterMs', (s) => s.direction === 'in', states),
      fairness: fairnessChart(d),
    },
    events: d.events.filter((e) => !labSetOf(e)),
    bucketMs: d.bucketMs,
    colors: participantColors(d.participants),
    summary: callSummary(d, states),
  };
}

/**
 * A call's detail and chart data, kept live: pushed points are appended and redrawn at most twice a
 * second; after a reconnect (a server restart) everything reloads so the gap fills from storage.
 */
export function useCallData(callId: string) {
  const fetchCall = useCallback(async () => {
    const path = `/calls/${encodeURIComponent(callId)}`;
    const [detail, series, events, judged] = await Promise.all([
      apiGet<CallDetail>(path),
      apiGet<Series>(`${path}/series?maxPoints=1200&fields=${CHARTED}`),
      apiGet<CallEvents>(`${path}/events`),
      apiGet<CallDiagnosis>(`${path}/diagnosis`),
    ]);
    const data = fromApi(detail, series, events.events);
    const diagnosis = diagnosisFromApi(judged);
    return { detail, data, diagnosis, snapshot: snapshotOf(data, diagnosis) };
  }, [callId]);
  const { data: loaded, error, reload, setData } = useLoad(fetchCall);
  const current = useRef(loaded);
  const dirty = useRef(false);
  useEffect(() => {
    current.current = loaded;
  });
  useEffect(() => {
    const timer = setInterval(() => {
      if (!dirty.current) return;
      dirty.current = false;
      setData((l) => l && { ...l, snapshot: snapshotOf(l.data, l.diagnosis) });
    }, 500);
    return () => clearInterval(timer);
  }, [setData]);
  const reloadSoon = useSoon(reload, 300);
  useLive(
    { callId },
    {
      points: (p) => {
        if (p.callId !== callId) return;
        // The page was opened before the call's first sample: now there is something to load.
        if (!current.current || !applyLive(current.current.data, p)) return reloadSoon();
        dirty.current = true;
      },
      diagnosis: (change) => {
        if (change.callId !== callId || !current.current) return;
        applyDiagnosis(current.current.diagnosis, change);
        dirty.current = true;
      },
      'call-changed': (m) => m.callId === callId && void reload(),
    },
    reload,
  );
  return { detail: loaded?.detail ?? null, snapshot: loaded?.snapshot ?? null, error, load: reload };
}
