import {
  type Batch,
  checker,
  type DecodedBatch,
  decodeBatch,
  decodePackedBatch,
  type IngestAck,
  type IngestClientEvents,
  IngestHandshake,
  type IngestServerEvents,
  LIMITS,
  type PrecallResultAck,
} from '@rtcscope/protocol';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Namespace } from 'socket.io';
import type { KeyResolver } from '../identity/keys/keys.js';
import type { Database } from '../db/database.js';
import type { DiagnosisThread } from '../diagnosis/thread.js';
import type { LiveHub } from '../live/hub.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { Registrar } from './entities.js';
import { GroupCommitter } from './group-commit.js';
import { LiveCallLimit, type Place } from './live-calls.js';
import { IngestLimits, SAMPLES_PER_SOCKET, WINDOW_S } from './limits.js';
import { addressKey } from './address-key.js';
import type { ProjectChanges } from '../identity/projects/plugin.js';
import { OutageLog } from '../db/availability.js';
import { CallOfOtherKind, IngestSession, MetadataRefused } from './session.js';
import proxyaddr from 'proxy-addr';
import { clientOf } from '../clients/client.js';
import { type TrustProxy, trustOf } from '../http/trust.js';
import { timeOutsideWindow } from './time-window.js';
import { IceServers } from './ice-servers.js';
import { PrecallResults } from './precall-results.js';
import { Allowance } from './allowance.js';

const checkHandshake = checker(IngestHandshake);

/**
 * Invalid messages a socket may send in a minute before it is ended: an SDK sends none (a bug may send a
 * few), and each costs the server a parse of up to a megabyte that no limit counted.
 */
export const INVALID_PER_MINUTE = 10;
/** Refusals counted apart from `invalid` and `failed` in the batches metric. */
const OUTCOMES: Record<string, string> = { rate_limited: 'limited', unauthorized: 'revoked' };

interface AuthError extends Error {
  data: { status: number; code: string; field?: string };
}

function authError(status: number, code: string, message: string, field?: string): AuthError {
  return Object.assign(new Error(message), { data: { status, code, ...(field ? { field } : {}) } });
}

/**
 * socket.io `/ingest`: SDKs authenticate with an ingest key and send batches that are acked after
 * commit, within their project's ingest limit (`projectIngestLimit`: the deployment's, per second) and
 * live calls (`projectLiveCalls`: the deployment's).
 */
export const ingest = fp(
  async (
    app: FastifyInstance,
    {
      projectIngestLimit,
      projectLiveCalls,
      trustProxy,
    }: { projectIngestLimit: number | null; projectLiveCalls: number | null; trustProxy: TrustProxy },
  ) => {
    attach(app.io.of('/ingest') as Namespace<IngestClientEvents, IngestServerEvents>, {
      trust: trustOf(trustProxy),
      db: app.db,
      keys: app.keys,
      live: app.live,
      diagnosis: app.diagnosis,
      telemetry: app.telemetry,
      log: app.log,
      projectChanges: app.projectChanges,
      projectIngestLimit,
      projectLiveCalls,
    });
  },
  { name: 'ingest', dependencies: ['live', 'diagnosis', 'project-changes'] },
);

function attach(
  ns: Namespace<IngestClientEvents, IngestServerEvents>,
  deps: {
    db: Database;
    keys: KeyResolver;
    live: LiveHub;
    diagnosis: DiagnosisThread | null;
    telemetry: Telemetry;
    log: FastifyBaseLogger;
    projectChanges: ProjectChanges;
    projectIngestLimit: number | null;
    projectLiveCalls: number | null;
    trust: (address: string, hop: number) => boolean;
  },
): void {
  const limits = new IngestLimits(deps.projectIngestLimit);
  const liveCalls = new LiveCallLimit(deps.db.pool, deps.projectLiveCalls);
  const registrar = new Registrar(deps.db.pool);
  const committer = new GroupCommitter(deps.db.pool, (n) => deps.telemetry.groupBatches.observe(n));
  const outage = new OutageLog(deps.log);
  const iceServers = new IceServers(deps.db.prisma, (session, label) =>
    deps.log.info({ project: session.projectId, session: session.handshake.session, turnUser: label }, 'TURN credentials handed out'),
  );
  const precallResults = new PrecallResults(deps.db.prisma);
  const invalid = new Allowance(INVALID_PER_MINUTE, 60);
  ns.use((socket, next) => {
    const refuse = (err: AuthError) => {
      deps.telemetry.handshakesRefused.inc({ status: err.data.status });
      next(err);
    };
    const hs = checkHandshake(socket.handshake.auth);
    if (!hs.ok) return refuse(authError(400, 'invalid', `handshake ${hs.error.field}: ${hs.error.message}`, hs.error.field));
    deps.keys
      .ingest(hs.value.key)
      .then(async (project) => {
        if (!project) return refuse(authError(401, 'unauthorized', 'unknown ingest key'));
        // The client, as the REST API's requests name it: behind a trusted proxy, the one it names.
        const address = proxyaddr(socket.request, deps.trust);
        const grouped = addressKey(address);
        const full = limits.socketsFull(project.projectId, project.ingestLimit, grouped);
        if (full !== null) {
          const message =
            'cap' in full
              ? `the project has ${full.cap} SDK connections to this server, as many as its ingest limit allows (${SAMPLES_PER_SOCKET} samples a second each): try again later, or ask the operator to raise the limit`
              : `this address has ${full.perAddress} SDK connections of the project to this server, as many as one address may hold: close some, or try again later`;
          return refuse(authError(429, 'too_many_connections', message));
        }
        const place = await liveCalls.admit(project.projectId, hs.value.callId, project.liveCallLimit);
        if ('full' in place) return refuse(authError(429, 'too_many_calls', tooManyCalls(place.full)));
        const headers = socket.handshake.headers;
        const client = clientOf({
          userAgent: headers['user-agent'],
          platformHint: headerText(headers['sec-ch-ua-platform']),
          mobileHint: headerText(headers['sec-ch-ua-mobile']),
          sdk: hs.value.sdk,
          address,
        });
        socket.data.session = new IngestSession(deps.db, registrar, committer, project.projectId, hs.value, client);
        socket.data.address = grouped;
        socket.data.place = place;
        next();
      })
      // What went wrong inside is the operator's to read in the log, not the client's.
      .catch((err: unknown) => {
        if (!outage.failed(err)) deps.log.error({ err }, 'ingest handshake: the key could not be checked');
        refuse(authError(503, 'unavailable', 'cannot check the key now: the database is unavailable; come back in a few seconds'));
      });
  });

  // A project's keys changed (replaced, its project deleted): its sockets whose key no longer opens it end now.
  deps.projectChanges.onChange((change) => {
    // Its sockets mostly share one key: each key is asked once, not once per socket.
    const checked = new Map<string, Promise<boolean>>();
    for (const socket of ns.sockets.values()) {
      const session = socket.data.session as IngestSession;
      if (session.projectId !== change.projectId) continue;
      const key = session.handshake.key;
      if (!checked.has(key)) checked.set(key, stillValid(session));
      checked
        .get(key)!
        .then((valid) => {
          if (!valid) socket.disconnect();
        })
        .catch((err: unknown) => {
          if (!outage.failed(err)) deps.log.warn({ err }, 'project changes: could not recheck an SDK connection');
        });
    }
  });

  /** The key is checked again for every message (through the key cache, which a project's change clears on every node). */
  async function stillValid(session: IngestSession) {
    return (await deps.keys.ingest(session.handshake.key))?.projectId === session.projectId;
  }
  const KEY_GONE = "the ingest key is no longer valid (it was replaced, or its project deleted): use the project's current ingest key";

  ns.on('connection', (socket) => {
    const session = socket.data.session as IngestSession;
    const address = socket.data.address as string | null;
    const place = socket.data.place as Place;
    limits.opened(session.projectId, address);
    socket.on('disconnect', () => {
      limits.closed(session.projectId, address);
      place.release();
    });
    socket.on('iceServers', (ack: unknown) => {
      if (typeof ack !== 'function') return;
      stillValid(session)
        .then(async (valid) => {
          if (valid) return iceServers.answer(session, address);
          socket.disconnect();
          return { ok: false, error: KEY_GONE } as const;
        })
        .catch((err: unknown) => {
          if (!outage.failed(err)) deps.log.error({ err }, 'ice servers: the TURN settings could not be read');
          return {
            ok: false,
            error: 'cannot read the TURN settings now: the database is unavailable; try again in a few seconds',
          } as const;
        })
        .then((answer) => (ack as (a: typeof answer) => void)(answer));
    });
    // Batches of one socket are written in order, one at a time, whatever the client pipelines.
    let chain = Promise.resolve();
    // After the batches sent before it: the call its samples made is the one the result joins.
    socket.on('precallResult', (input: unknown, ack: unknown) => {
      const reply = typeof ack === 'function' ? (ack as (a: PrecallResultAck) => void) : () => {};
      chain = chain.then(() =>
        stillValid(session)
          .then(async (valid) => {
            if (!valid) {
              reply({ ok: false, error: KEY_GONE });
              socket.disconnect();
              return;
            }
            const { stored, ...answer } = await precallResults.take(session, address, input);
            if (session.callDbId !== null) place.release();
            reply(answer);
            if (stored) deps.live.callsChanged(session.projectId, session.handshake.callId);
          })
          .catch((err: unknown) => {
            if (!outage.failed(err)) deps.log.error({ err, project: session.projectId }, 'pre-call result: not stored');
            reply({ ok: false, error: 'the result was not stored: the database is unavailable; send it again in a few seconds' });
          }),
      );
    });
    socket.on('batch', (input: unknown, ack: unknown) => {
      const received = performance.now();
      const reply = (a: IngestAck) => {
        deps.telemetry.ackSeconds.observe((performance.now() - received) / 1000);
        deps.telemetry.batches.inc({ outcome: a.ok ? 'stored' : (OUTCOMES[a.error.code] ?? (a.retry ? 'failed' : 'invalid')) });
        if (a.ok) deps.telemetry.samples.inc(a.stored);
        if (typeof ack === 'function') (ack as (a: IngestAck) => void)(a);
        if (!a.ok && a.error.code === 'invalid') {
          void invalid.take(socket.id).then((room) => {
            if (!room) socket.disconnect();
          });
        }
      };
      chain = chain.then(() => handle(session, place, input, reply, () => socket.disconnect()));
    });
  });

  async function handle(
    session: IngestSession,
    place: Place,
    input: unknown,
    reply: (a: IngestAck) => void,
    end: () => void,
  ): Promise<void> {
    const known = [new Set(session.streams.keys()), new Set(session.connections.keys())] as const;
    const decoded = session.handshake.v === 2 ? decodePackedBatch(input, ...known, session.references) : decodeBatch(input, ...known);
    if (!decoded.ok && 'baseUnknown' in decoded) {
      const { n, message } = decoded.baseUnknown;
      return reply({ ok: false, n, retry: true, error: { code: 'base_unknown', message } });
    }
    const n = decoded.ok ? decoded.value.batch.n : typeof (input as Batch | null)?.n === 'number' ? (input as Batch).n : null;
    if (!decoded.ok) return reply({ ok: false, n, retry: false, error: { code: 'invalid', ...decoded.error } });
    const badTime = timeOutsideWindow(decoded.value, Date.now());
    if (badTime) {
      return reply({
        ok: false,
        n,
        retry: false,
        error: {
          code: 'invalid',
          field: badTime.field,
          message: `time ${new Date(badTime.ts).toISOString()} is outside the accepted window (7 days back, 10 minutes ahead): check the client clock`,
        },
      });
    }
    try {
      // The key is checked again for every batch (through the key cache, which an operator's change
      // clears on every node): a deleted project stops writing on sockets opened before, and a changed
      // limit applies to them.
      const project = await deps.keys.ingest(session.handshake.key);
      if (project?.projectId !== session.projectId) {
        reply({ ok: false, n, retry: false, error: { code: 'unauthorized', message: `${KEY_GONE}; the batch was not stored` } });
        return end();
      }
      // A socket that waited past its held place starts its call only if the project has room for it now.
      if (session.callDbId === null && place.lapsed) {
        const again = await liveCalls.admit(session.projectId, session.handshake.callId, project.liveCallLimit);
        if ('full' in again) {
          return reply({ ok: false, n, retry: true, error: { code: 'too_many_calls', message: tooManyCalls(again.full) } });
        }
        again.release();
      }
      const limit = await limits.exceeded(session.projectId, project.ingestLimit, messageCost(decoded.value));
      if (limit !== null) {
        return reply({
          ok: false,
          n,
          retry: true,
          error: {
            code: 'rate_limited',
            message: `the project sends more than its limit of ${limit} samples a second (over ${WINDOW_S} s; events, declarations and metadata keys count as samples) to this server: the batch was not stored; send it again later, or ask the operator to raise the limit`,
          },
        });
      }
      const committed = await session.write(decoded.value);
      place.release();
      outage.succeeded();
      const { outOfRange } = decoded.value;
      reply({ ok: true, n: n!, stored: committed.stored, ...(outOfRange.count ? { outOfRange } : {}) });
      deps.live.publishBatch(session, committed);
      deps.diagnosis?.observe(session, committed);
    } catch (err) {
      if (err instanceof CallOfOtherKind) {
        const message = `call ${err.callId} is held by a ${err.kind === 'call' ? 'pre-call test' : 'call'}: nothing was stored; use a new call id`;
        reply({ ok: false, n, retry: false, error: { code: 'call_kind', message } });
        return end();
      }
      if (err instanceof MetadataRefused) {
        reply({ ok: false, n, retry: false, error: { code: 'metadata_limit', field: err.field, message: metadataMessage(err) } });
        // Every batch of this socket would register it with the same handshake metadata again.
        if (err.field === 'handshake.metadata') end();
        return;
      }
      if (!outage.failed(err)) deps.log.error({ err, project: session.projectId }, 'ingest write failed');
      reply({ ok: false, n, retry: true, error: { code: 'unavailable', message: 'the batch was not stored; send it again' } });
    }
  }
}

/**
 * What a message counts against its project's ingest limit: each sample, event, declared connection or
 * stream and metadata key it carries, and at least one. A message of metadata or events alone costs
 * the database a write too.
 */
export function messageCost({ batch, streamRows, connectionRows }: DecodedBatch): number {
  const carried =
    streamRows.length +
    connectionRows.length +
    (batch.e?.length ?? 0) +
    (batch.conns?.length ?? 0) +
    (batch.streams?.length ?? 0) +
    Object.keys(batch.metadata ?? {}).length;
  return Math.max(1, carried);
}

const tooManyCalls = (limit: number) =>
  `the project has ${limit} live calls, as many as it may have at once: this call was not started (its samples are kept and sent when it is let in); end calls, or ask the operator to raise the limit`;

function metadataMessage({ field, target }: MetadataRefused): string {
  const cap = `${LIMITS.maxStoredMetadataKeys} keys or ${LIMITS.maxStoredMetadataBytes} bytes of JSON`;
  if (field === 'metadata') {
    return `the participant's metadata would hold more than ${cap}: nothing of this batch was stored; send it again without this metadata, and keep fewer or shorter keys`;
  }
  const whose =
    target === 'call'
      ? "the call's metadata (merged from all its participants)"
      : "the participant's metadata (merged from all its sessions)";
  return `${whose} would hold more than ${cap} with this connection's metadata: it was refused and disconnected; connect again with less metadata`;
}

const headerText = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
