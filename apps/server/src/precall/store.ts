import type { PrecallReport } from '@rtcscope/protocol';
import type { Db } from '../db/database.js';

export type StoreOutcome = 'stored' | 'again' | 'not-precall';

/** The columns insights read, from the report (which is kept whole beside them). */
function columns(report: PrecallReport) {
  const way = (t: 'udp' | 'tcp' | 'tls') => {
    const tried = report.transports.filter((c) => c.transport === t);
    return tried.length ? tried.some((c) => c.connected) : null;
  };
  return {
    ticket: report.ticket ?? null,
    verdict: report.verdict,
    transport: report.media?.transport ?? null,
    needsTurn: !report.gathering.candidates.some((c) => c.type === 'srflx'),
    udpOk: way('udp'),
    tcpOk: way('tcp'),
    tlsOk: way('tls'),
    throughputKbps: report.media?.throughputKbps ?? null,
    rttMs: report.media?.rttMs?.avg ?? null,
    jitterMs: report.media?.jitterMs?.avg ?? null,
    lossPct: report.media?.lossPct?.avg ?? null,
  };
}

/**
 * Keeps a pre-call test's result beside its call, once: the same result sent again (a reconnect after
 * the answer was lost) is not a second test.
 */
export async function storePrecallResult(db: Db, projectId: string, callDbId: number, report: PrecallReport): Promise<StoreOutcome> {
  const call = await db.call.findFirst({ where: { id: callDbId, projectId }, select: { kind: true } });
  if (call?.kind !== 'precall') return 'not-precall';
  const { count } = await db.precallTest.createMany({
    data: [{ projectId, callId: callDbId, report, ...columns(report) }],
    skipDuplicates: true,
  });
  return count ? 'stored' : 'again';
}
