import { diagnoseRecording, PARTICIPANT_LEFT, type Recording } from '@rtcscope/diagnosis';
import type { CallDiagnosis } from '@rtcscope/protocol';
import { loadCallDetail, loadEvents } from '../calls/read.js';
import { loadSeries } from '../calls/samples.js';
import type { Database } from '../db/database.js';
import { diagnosisOf, issueToApi } from './store.js';

/**
 * What is stored of a call (its samples at full resolution while they are kept, its events) as the
 * diagnosis reads a recording. Null without such a call.
 */
export async function storedRecording(db: Database, projectId: string, callId: string): Promise<Recording | null> {
  const [detail, events] = await Promise.all([loadCallDetail(db, projectId, callId), loadEvents(db, projectId, callId)]);
  if (!detail || !events) return null;
  const series = await loadSeries(db, projectId, callId, { maxPoints: 10_000 });
  if (series === null || series === 'reversed') return null;
  const connections = detail.participants.flatMap((p) => p.connections.map((c) => ({ ...c, participant: p.id })));
  return {
    connections: connections.map((c) => ({ id: c.id, participant: c.participant, localCandidateType: c.localCandidateType, localProtocol: c.localProtocol })),
    streams: connections.flatMap((c) => c.streams.map((s) => ({ id: s.id, participant: c.participant, connectionId: c.id, direction: s.direction, kind: s.kind, ssrc: s.ssrc, codec: s.codec }))),
    streamSamples: series.streams,
    connectionSamples: series.connections,
    events: [
      ...events.events.map((e) => ({ ts: e.ts, participant: e.participantId, connectionId: e.connectionId, type: e.type, detail: e.detail })),
      ...detail.participants.flatMap((p) => (p.leftAt === null ? [] : [{ ts: p.leftAt, participant: p.id, connectionId: null, type: PARTICIPANT_LEFT, detail: null }])),
    ],
  };
}

/**
 * A call diagnosed again from what is stored of it, by the same code as the live diagnosis; nothing is
 * stored. Issue ids are 0: these issues are not the stored ones. Null without such a call.
 */
export async function diagnoseStoredCall(db: Database, projectId: string, callId: string): Promise<CallDiagnosis | null> {
  const recording = await storedRecording(db, projectId, callId);
  if (!recording) return null;
  const { issues, scores } = diagnoseRecording(recording);
  return diagnosisOf(
    issues.map((i) => issueToApi(0, callId, i)),
    scores,
  );
}
