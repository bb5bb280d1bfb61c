import { setTimeout as sleep } from 'node:timers/promises';
import { type DecodedBatch, type IngestHandshake, ReferenceHistory } from '@rtcscope/protocol';
import { meanRoles } from '@rtcscope/metrics';
import type { ClientInfo } from '../clients/client.js';
import type { Database } from '../db/database.js';
import { Partitions } from '../samples/partitions.js';
import { type MetadataTarget, metadataOverCap } from '../samples/metadata.js';
import type { Registrar } from './entities.js';
import type { GroupCommitter } from './group-commit.js';
import type { BatchWrite, Committed, EventInsert, StreamRole } from '../samples/write.js';

/**
 * The server side of one SDK socket: maps the session's small indexes to database ids and writes
 * each batch. The SDK declares everything again after a reconnect, so this state lives per socket.
 */
export class IngestSession {
  readonly streams = new Map<number, number>();
  /** Which call means each declared stream's values feed. */
  private roles: StreamRole[] = [];
  readonly connections = new Map<number, number>();
  private registered: { callDbId: number; participantDbId: number } | null = null;
  /** Until a batch is stored whole, this session may be resending batches stored before. */
  private settled = false;
  /** What wire version 2's batches of this socket are packed against: those of the last few stored. */
  readonly references = new ReferenceHistory();
  /** When the TURN credentials this socket was handed expire (ms), if it was handed any. */
  turnExpiresAt: number | null = null;
  /** The pre-call result this socket stored, as JSON: a test sends one (the same again is answered, not stored). */
  precallStored: string | null = null;

  constructor(
    private readonly db: Database,
    private readonly registrar: Registrar,
    private readonly committer: GroupCommitter,
    readonly projectId: string,
    readonly handshake: IngestHandshake,
    private readonly client: ClientInfo,
  ) {}

  /** The call's database id, once the first batch registered the participant. */
  get callDbId(): number | null {
    return this.registered?.callDbId ?? null;
  }

  /**
   * Makes the session's call and participant on its first message (a batch, or a pre-call test's result
   * that came before any): true when that made the call.
   */
  async register(firstTs: number): Promise<boolean> {
    if (this.registered) return false;
    const r = await this.registrar
      .participant({
        projectId: this.projectId,
        callId: this.handshake.callId,
        participantId: this.handshake.participantId,
        firstTs,
        metadata: this.handshake.metadata ?? {},
        client: this.client,
        kind: this.handshake.kind ?? 'call',
      })
      .catch(refusedMetadata('handshake.metadata'));
    if (!r) throw new CallOfOtherKind(this.handshake.callId, this.handshake.kind ?? 'call');
    this.registered = { callDbId: r.callDbId, participantDbId: r.participantDbId };
    return r.callCreated;
  }

  async write({ batch, streamRows, connectionRows, references }: DecodedBatch): Promise<Committed> {
    const times = streamRows.map((r) => r.ts).concat(connectionRows.map((r) => r.ts));
    const firstTs = times.reduce((a, b) => Math.min(a, b), times[0] ?? batch.t0);
    const participantJoined = !this.registered;
    const callCreated = await this.register(firstTs);
    const { callDbId, participantDbId } = this.registered!;

    const newConnections: Committed['newConnections'] = [];
    if (batch.conns?.length) {
      const ids = await this.registrar.connectionIds({
        projectId: this.projectId,
        participantDbId,
        session: this.handshake.session,
        conns: batch.conns,
      });
      for (const c of batch.conns) {
        const id = ids.get(c.i) ?? -1;
        this.connections.set(c.i, id);
        newConnections.push({
          id,
          key: c.key,
          session: this.handshake.session,
          localCandidateType: c.localCandidateType ?? null,
          localProtocol: c.localProtocol ?? null,
          remoteCandidateType: c.remoteCandidateType ?? null,
          remoteProtocol: c.remoteProtocol ?? null,
        });
      }
    }
    const newStreams: Committed['newStreams'] = [];
    if (batch.streams?.length) {
      const declared = batch.streams.map((s) => ({ ...s, connectionDbId: this.connections.get(s.conn) ?? -1 }));
      const ids = await this.registrar.streamIds({ projectId: this.projectId, streams: declared });
      for (const s of declared) {
        const id = ids.get(s.i) ?? -1;
        this.streams.set(s.i, id);
        this.roles = this.roles.filter((r) => r.id !== id);
        this.roles.push({ id, ...meanRoles(s.direction, s.kind) });
        newStreams.push({
          id,
          connectionId: s.connectionDbId,
          direction: s.direction,
          kind: s.kind,
          ssrc: s.ssrc,
          rid: s.rid ?? null,
          trackId: s.trackId ?? null,
          from: null,
          codec: s.codec ?? null,
          implementation: s.implementation ?? null,
          contentType: s.contentType ?? null,
          outOfRange: 0,
          // Declared, nothing carried yet: the page tells its state from the points that follow.
          state: 'never-active',
          activeFrom: null,
          activeUntil: null,
        });
      }
    }

    for (const r of streamRows) r.index = this.streams.get(r.index) ?? -1;
    for (const r of connectionRows) r.index = this.connections.get(r.index) ?? -1;
    const events: EventInsert[] = (batch.e ?? []).map(([seq, dt, conn, type, detail]) => ({
      connectionDbId: conn === null ? null : (this.connections.get(conn) ?? null),
      seq,
      ts: Math.round(batch.t0 + dt),
      type,
      detail: detail ?? null,
    }));
    await Partitions.of(this.db.pool).ensureFor(times);
    const left = batch.bye === true;
    const write: BatchWrite = {
      projectId: this.projectId,
      callDbId,
      participantDbId,
      session: this.handshake.session,
      streamRows,
      connectionRows,
      streamRoles: this.roles,
      events,
      left,
      mayRepeat: !this.settled,
      metadata: batch.metadata ?? null,
    };
    const result = await this.writeWithSlices(write, times).catch(refusedMetadata('metadata'));
    if (result.stored === streamRows.length + connectionRows.length) this.settled = true;
    if (references) this.references.stored(references.n, references.after);
    return {
      ...result,
      callCreated,
      participantJoined,
      left,
      newConnections,
      newStreams,
      streamRows,
      connectionRows,
      events,
    };
  }

  /**
   * Writes a batch, making its slices again when one it trusted is gone: a past slice (a late batch, an
   * imported recording) may be compacted and dropped by any node meanwhile. While a compaction is still
   * detaching it, the slice cannot be made again yet: the write waits a little longer each time.
   */
  private async writeWithSlices(write: BatchWrite, times: readonly number[]) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.committer.write(write);
      } catch (err) {
        if (!isMissingPartition(err) || attempt === SLICE_RETRIES_MS.length) throw err;
        await sleep(SLICE_RETRIES_MS[attempt]!);
        Partitions.of(this.db.pool).forget(times);
        await Partitions.of(this.db.pool).ensureFor(times);
      }
    }
  }
}

/** How long a write whose slice was gone waits before each new try, ms: a small slice is detached and dropped within a second or two. */
const SLICE_RETRIES_MS = [0, 250, 1000, 3000];

/**
 * The session's call id is held by a call of another kind (a pre-call test's id taken by a call, or the
 * other way round): nothing was registered, and the call was neither reopened nor joined.
 */
export class CallOfOtherKind extends Error {
  constructor(
    readonly callId: string,
    readonly kind: 'call' | 'precall',
  ) {
    super(`call ${callId} is not of kind ${kind}`);
  }
}

/** A message whose metadata would take the participant's or the call's stored metadata past its cap: nothing of it was stored. */
export class MetadataRefused extends Error {
  constructor(
    /** Where the metadata came from: the socket's handshake (every batch of it would fail), or this batch. */
    readonly field: 'handshake.metadata' | 'metadata',
    readonly target: MetadataTarget,
  ) {
    super(`the ${target}'s metadata would pass its cap`);
  }
}

const refusedMetadata = (field: MetadataRefused['field']) => (err: unknown) => {
  const target = metadataOverCap(err);
  throw target ? new MetadataRefused(field, target) : err;
};

/** PostgreSQL's refusal of a row whose time no partition takes (a check violation, told apart by its message). */
function isMissingPartition(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e.code === '23514' && /^no partition of relation/.test(e.message ?? '');
}
