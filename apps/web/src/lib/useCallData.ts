import type { CallDetail, CallEvent, CallEvents, LivePoints, Series } from '@rtcscope/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { apiGet } from './api.js';
import { labSetOf, labSetsOf } from '@rtcscope/experiments';
import { applyLive, type CallData, type Chart, fairnessChart, fromApi, rateChart, rttChart, streamChart, withSet } from './calldata.js';
import { liveSocket } from './live.js';
import { newestWins } from './newest.js';

/** The stream fields the call page draws: asking only for these keeps long calls' history light. */
const CHARTED = ['kbps', 'rttMs', 'fps', 'height', 'lossPct', 'jitterMs'].join(',');

export interface Snapshot {
  charts: Record<'rate' | 'rtt' | 'fps' | 'resolution' | 'loss' | 'jitter' | 'fairness', Chart>;
  events: CallEvent[];
  bucketMs: number;
}

/** Charts are derived from the mutable call data outside render, at most twice a second. */
function snapshotOf(d: CallData): Snapshot {
  const sets = labSetsOf(d.events);
  return {
    charts: {
      rate: withSet(rateChart(d), sets, (s) => s.rateKbps, 'cap'),
      rtt: withSet(rttChart(d), sets, (s) => s.delayMs, 'delay'),
      fps: streamChart(d, 'fps', (s) => s.kind === 'video'),
      resolution: streamChart(d, 'height', (s) => s.kind === 'video'),
      loss: withSet(streamChart(d, 'lossPct', (s) => s.direction === 'in' || s.kind === 'video'), sets, (s) => s.lossPct, 'loss'),
      jitter: streamChart(d, 'jitterMs', (s) => s.direction === 'in'),
      fairness: fairnessChart(d),
    },
    events: d.events.filter((e) => !labSetOf(e)),
    bucketMs: d.bucketMs,
  };
}

/**
 * A call's detail and chart data, kept live: pushed points are appended and redrawn at most twice a
 * second; after a reconnect (a server restart) everything reloads so the gap fills from storage.
 */
export function useCallData(callId: string) {
  const [detail, setDetail] = useState<CallDetail | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const data = useRef<CallData | null>(null);
  const [snapshot, setSnapshot] = useState<Snapshot | null>(null);
  const [begin] = useState(newestWins);

  const load = useCallback(async () => {
    const path = `/calls/${encodeURIComponent(callId)}`;
    const isNewest = begin();
    try {
      const [d, s, e] = await Promise.all([apiGet<CallDetail>(path), apiGet<Series>(`${path}/series?maxPoints=1200&fields=${CHARTED}`), apiGet<CallEvents>(`${path}/events`)]);
      if (!isNewest()) return;
      data.current = fromApi(d, s, e.events);
      setDetail(d);
      setSnapshot(snapshotOf(data.current));
      setError(null);
    } catch (err) {
      if (isNewest()) setError(err as Error);
    }
  }, [callId, begin]);

  useEffect(() => {
    const s = liveSocket();
    let dirty = false;
    let reload: ReturnType<typeof setTimeout> | undefined;
    const reloadSoon = () => {
      clearTimeout(reload);
      reload = setTimeout(() => void load(), 300);
    };
    const subscribe = () => s.emit('subscribe', { callId });
    const onPoints = (p: LivePoints) => {
      if (p.callId !== callId) return;
      // The page was opened before the call's first sample: now there is something to load.
      if (!data.current || !applyLive(data.current, p)) return reloadSoon();
      dirty = true;
    };
    const onReconnect = () => {
      subscribe();
      void load();
    };
    const onChanged = (m: { callId: string }) => m.callId === callId && void load();
    const timer = setInterval(() => {
      if (!dirty || !data.current) return;
      dirty = false;
      setSnapshot(snapshotOf(data.current));
    }, 500);
    const initial = setTimeout(() => void load(), 0);
    subscribe();
    s.on('points', onPoints);
    s.io.on('reconnect', onReconnect);
    s.on('call-changed', onChanged);
    return () => {
      clearInterval(timer);
      clearTimeout(initial);
      clearTimeout(reload);
      s.emit('unsubscribe', { callId });
      s.off('points', onPoints);
      s.io.off('reconnect', onReconnect);
      s.off('call-changed', onChanged);
    };
  }, [callId, load]);

  return { detail, snapshot, error, load };
}
