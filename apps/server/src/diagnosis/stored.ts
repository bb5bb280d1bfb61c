import { type Issue, PARTICIPANT_LEFT, RecordingDiagnosis } from '@rtcscope/diagnosis';
import type { CallDiagnosis } from '@rtcscope/protocol';
import { loadCallRecord, loadEvents } from '../samples/call-record.js';
import { loadSeries } from '../samples/call-series.js';
import type { Database } from '../db/database.js';
import type { ScorePoint } from '@rtcscope/diagnosis';
import { diagnosisOf, issueToApi } from './store.js';
import { connectionMeta, streamMeta } from './meta.js';

/** A stored call is read a minute at a time: a long one is never held whole. */
const STRETCH_MS = 60_000;

/**
 * A stored call diagnosed again from its samples at full resolution (while they are kept) and its
 * events, by the same code as the live diagnosis; nothing is stored. Null without such a call.
 */
export async function diagnoseStored(
  db: Database,
  projectId: string,
  callId: string,
): Promise<{ issues: Issue[]; scores: ScorePoint[] } | null> {
  const [record, stored] = await Promise.all([loadCallRecord(db, projectId, callId), loadEvents(db, projectId, callId)]);
  if (!record || !stored) return null;
  const connections = record.participants.flatMap((p) => p.connections.map((c) => ({ ...c, participant: p.id })));
  const diagnosis = new RecordingDiagnosis({
    connections: connections.map((c) => connectionMeta(c, c.participant)),
    streams: connections.flatMap((c) => c.streams.map((s) => streamMeta(s, c.participant, c.id))),
  });
  const events = [
    ...stored.events.map((e) => ({ ts: e.ts, participant: e.participantId, connectionId: e.connectionId, type: e.type, detail: e.detail })),
    ...record.participants.flatMap((p) =>
      p.leftAt === null ? [] : [{ ts: p.leftAt, participant: p.id, connectionId: null, type: PARTICIPANT_LEFT, detail: null }],
    ),
  ];
  const { row } = record;
  const times = [row.startedAt.getTime(), (row.endedAt ?? row.lastSeenAt).getTime(), ...events.map((e) => e.ts)];
  const first = Math.floor(Math.min(...times) / 1000) * 1000;
  const last = Math.max(...times);
  for (let from = first; from <= last; from += STRETCH_MS) {
    const to = from + STRETCH_MS - 1;
    const series = await loadSeries(db, projectId, callId, { from, to, maxPoints: STRETCH_MS / 1000 });
    if (series === null || series === 'reversed') return null;
    diagnosis.add({
      streamSamples: series.streams,
      connectionSamples: series.connections,
      events: events.filter((e) => e.ts >= from && e.ts <= to),
    });
  }
  return diagnosis.finish();
}

/**
 * The stored call diagnosed again, as the API gives it: issue ids are their places in this answer from 1
 * (these are not the stored issues), which `causeId` refers to.
 */
export async function diagnoseStoredCall(db: Database, projectId: string, callId: string): Promise<CallDiagnosis | null> {
  const found = await diagnoseStored(db, projectId, callId);
  if (!found) return null;
  const place = new Map(found.issues.map((i, k) => [i, k + 1]));
  return diagnosisOf(
    found.issues.map((i) => issueToApi(place.get(i)!, callId, i, i.causedBy ? (place.get(i.causedBy) ?? null) : null)),
    found.scores,
  );
}
