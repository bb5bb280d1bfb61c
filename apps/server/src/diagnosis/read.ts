import type { CallDiagnosis, CallIssue, IssueQuery } from '@rtcscope/protocol';
import { findCall } from '../samples/call-record.js';
import type { Database } from '../db/database.js';
import { diagnosisOf, ISSUE_COLUMNS, type IssueRow, lowersOf, SCORE_SOURCE, toIssue } from './store.js';

/** A call's stored diagnosis; null without such a call in the project. */
export async function loadDiagnosis(db: Database, projectId: string, callId: string): Promise<CallDiagnosis | null> {
  const call = await findCall(db, projectId, callId);
  if (!call) return null;
  const [issues, scores] = await Promise.all([
    db.pool.query<IssueRow>(
      `SELECT ${ISSUE_COLUMNS} FROM call_issue i JOIN call c ON c.id = i.call_id WHERE i.call_id = $1 AND i.project_id = $2 ORDER BY i.started_at, i.id`,
      [call.id, projectId],
    ),
    db.pool.query<{
      stream_id: string;
      participant: string;
      kind: 'audio' | 'video';
      ts: Date;
      mos: number;
      lowers: (number | null)[] | null;
      weight: number;
      delay_ms: number | null;
    }>(
      `SELECT sc.stream_id, pa.external_id AS participant, st.kind, sc.ts, sc.mos, sc.lowers, sc.weight, sc.delay_ms FROM ${SCORE_SOURCE} WHERE sc.call_id = $1 ORDER BY sc.ts`,
      [call.id],
    ),
  ]);
  return diagnosisOf(
    issues.rows.map(toIssue),
    scores.rows.map((r) => ({
      streamId: Number(r.stream_id),
      participant: r.participant,
      kind: r.kind,
      ts: r.ts.getTime(),
      mos: r.mos,
      lowers: lowersOf(r.lowers),
      weight: r.weight,
      ...(r.delay_ms === null ? {} : { delayMs: r.delay_ms }),
    })),
  );
}

/** The project's issues across calls, newest first, by type, participant and time. */
export async function listIssues(db: Database, projectId: string, q: IssueQuery): Promise<CallIssue[]> {
  const to = q.to ?? Date.now();
  const from = q.from ?? to - 86_400_000;
  const { rows } = await db.pool.query<IssueRow>(
    `SELECT ${ISSUE_COLUMNS} FROM call_issue i JOIN call c ON c.id = i.call_id
     WHERE i.project_id = $1 AND i.started_at BETWEEN to_timestamp($2 / 1000.0) AND to_timestamp($3 / 1000.0)
       AND ($4::text IS NULL OR i.type = $4) AND ($5::text IS NULL OR i.participant = $5)
     ORDER BY i.started_at DESC, i.id DESC LIMIT $6`,
    [projectId, from, to, q.type ?? null, q.participant ?? null, q.limit ?? 200],
  );
  return rows.map(toIssue);
}
