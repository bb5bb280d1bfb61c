import type { Batch, IngestAck } from '@rtcscope/protocol';
import type pg from 'pg';
import { io, type Socket } from 'socket.io-client';

const STREAMS = [
  { i: 0, conn: 0, direction: 'out' as const, kind: 'video' as const, ssrc: 1 },
  { i: 1, conn: 0, direction: 'out' as const, kind: 'audio' as const, ssrc: 2 },
];

export type StreamingClient = ReturnType<typeof streamingClient>;

/**
 * An SDK-like client: a batch every 100 ms, kept until acknowledged. As the SDK does, a batch that was
 * not acknowledged (no answer in time, the socket dropped, or the server asked for it again) goes again
 * at the next tick, to whichever node the socket is on by then; streams are declared again on every
 * new socket, and a socket refused as `unavailable` comes back. A batch refused for good is kept in
 * `refused`, for the test to show.
 */
export function streamingClient(url: string, ingestKey: string, callId: string, participantId: string) {
  const t0 = Date.now() - 60_000;
  const acked = new Set<number>();
  const pending = new Map<number, Batch>();
  const inFlight = new Set<number>();
  const refused: IngestAck[] = [];
  let n = 0;
  let producing = true;
  let declared = false;
  let connects = 0;
  let closed = false;
  const socket: Socket = io(`${url}/ingest`, {
    auth: { v: 1, key: ingestKey, callId, participantId, session: `${participantId}-s` },
    transports: ['websocket'],
    reconnectionDelay: 200,
    reconnectionDelayMax: 500,
  });
  const send = (batch: Batch) => {
    const withDeclarations = declared ? batch : { ...batch, conns: [{ i: 0, key: 'pc1' }], streams: STREAMS };
    inFlight.add(batch.n);
    // Long enough for a loaded server's backlog: the SDK waits for each answer, this client pipelines,
    // and a batch resent while the server still holds it doubles its work until it never catches up
    // (a 2 s timeout stalled the faults test with a busy core beside it).
    socket
      .timeout(10_000)
      .emitWithAck('batch', withDeclarations)
      .then((ack: IngestAck) => {
        if (!ack.ok) {
          if (!ack.retry) refused.push(ack);
          return;
        }
        declared = true;
        pending.delete(batch.n);
        acked.add(batch.n);
      })
      .catch(() => {})
      .finally(() => inFlight.delete(batch.n));
  };
  const sendPending = () => {
    for (const b of [...pending.values()].sort((x, y) => x.n - y.n)) if (!inFlight.has(b.n)) send(b);
  };
  socket.on('connect', () => {
    connects++;
    declared = false;
    // Batches sent on the old socket will never be answered; their timeouts need not be awaited.
    inFlight.clear();
    sendPending();
  });
  socket.on('connect_error', (err) => {
    const code = (err as { data?: { code?: string } }).data?.code;
    if (code === 'unavailable' && !socket.active && !closed) setTimeout(() => !closed && socket.connect(), 300);
  });
  const timer = setInterval(() => {
    const seq = n++;
    if (producing) pending.set(seq, { n: seq, t0: t0 + seq * 100, s: STREAMS.map((s) => [s.i, seq, 0, 500 + seq]) });
    if (socket.connected) sendPending();
  }, 100);
  return {
    acked,
    pending,
    refused,
    reconnects: () => connects - 1,
    /** Makes no more batches; those not yet acknowledged still go again. */
    stop: () => (producing = false),
    close: () => {
      closed = true;
      clearInterval(timer);
      socket.disconnect();
    },
  };
}

/** How many times each sample of a call is stored, by stream kind and sequence number (`video 12`). */
export async function storedCopies(pool: pg.Pool, callId: string): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ sample: string; copies: number }>(
    `SELECT st.kind || ' ' || s.seq AS sample, count(*)::int AS copies FROM stream_sample s
     JOIN stream st ON st.id = s.stream_id JOIN connection c ON c.id = st.connection_id
     JOIN participant p ON p.id = c.participant_id JOIN call ca ON ca.id = p.call_id
     WHERE ca.external_id = $1 GROUP BY 1`,
    [callId],
  );
  return new Map(rows.map((r) => [r.sample, r.copies]));
}

/**
 * Every sample of each client's acknowledged batches against what its call stored: missing
 * (acknowledged, not stored) and doubled (stored twice), counted over all of them.
 */
export async function audit(pool: pg.Pool, clients: { callId: string; client: StreamingClient }[]) {
  const counts = { clients: clients.length, acknowledged: 0, stored: 0, missing: 0, doubled: 0, refused: 0 };
  for (const { callId, client } of clients) {
    const copies = await storedCopies(pool, callId);
    for (const n of client.acked) {
      for (const s of STREAMS) {
        counts.acknowledged++;
        if (!copies.has(`${s.kind} ${n}`)) counts.missing++;
      }
    }
    for (const c of copies.values()) {
      counts.stored++;
      if (c > 1) counts.doubled++;
    }
    counts.refused += client.refused.length;
  }
  return counts;
}
