import {
  type Ack,
  type AgentClientEvents,
  AgentHello,
  type AgentServerEvents,
  type Job,
  RunProgress,
  RunReport,
} from '@rtcscope/experiments';
import { checker, JanusEventPost, LiveKitEventPost } from '@rtcscope/protocol';
import { eventsOf, readJanusEvents } from '../sfu/janus-events.js';
import { liveKitEventsOf, readLiveKitEvents } from '../sfu/livekit-events.js';
import { storeSfuEvents } from '../sfu/store.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Namespace, Server, Socket } from 'socket.io';
import { hashKey } from '../identity/keys/keys.js';
import type { Database } from '../db/database.js';
import type { LiveHub } from '../live/hub.js';
import { computeOutcome } from './outcome.js';
import type { RunQueue } from './queue.js';

const checkHello = checker(AgentHello);
const checkProgress = checker(RunProgress);
const checkReport = checker(RunReport);
const checkSfuEvents = checker(JanusEventPost);
const checkLiveKitEvents = checker(LiveKitEventPost);

interface AgentIdentity {
  agentId: number;
  name: string;
  projectId: string;
  ingestKey: string;
  ready: boolean;
}

const projectRoom = (projectId: string) => `agents:${projectId}`;
const agentRoom = (agentId: number) => `agent:${agentId}`;
type Reply<T = object> = (a: Ack | (Ack & T)) => void;
const replyOf = <T>(ack: unknown): Reply<T> => (typeof ack === 'function' ? (ack as Reply<T>) : () => {});

/**
 * socket.io `/agent`: lab agents authenticate with an agent token (`Authorization`-like, in the
 * handshake's auth), say what they can do, pull jobs from the queue, stream progress and report.
 * Every message is validated; a bad one is refused with the field named and changes nothing.
 */
export class AgentHub {
  private readonly ns: Namespace<AgentClientEvents, AgentServerEvents>;

  constructor(
    io: Server,
    private readonly db: Database,
    private readonly queue: RunQueue,
    private readonly live: LiveHub,
    private readonly log: FastifyBaseLogger,
  ) {
    this.ns = io.of('/agent') as Namespace<AgentClientEvents, AgentServerEvents>;
    this.ns.use((socket, next) => {
      const token = (socket.handshake.auth as { token?: unknown }).token;
      if (typeof token !== 'string' || !token)
        return next(Object.assign(new Error('send the agent token as auth.token'), { data: { status: 401 } }));
      db.prisma.labAgent
        .findUnique({ where: { tokenHash: hashKey(token) }, include: { project: { select: { ingestKey: true } } } })
        .then((agent) => {
          if (!agent)
            return next(
              Object.assign(new Error('unknown agent token: create one on the Experiments page or POST /api/v1/lab/agents'), {
                data: { status: 401 },
              }),
            );
          const identity: AgentIdentity = {
            agentId: Number(agent.id),
            name: agent.name,
            projectId: agent.projectId,
            ingestKey: agent.project.ingestKey,
            ready: false,
          };
          socket.data.agent = identity;
          next();
        })
        .catch(() => next(Object.assign(new Error('cannot check the token now'), { data: { status: 503 } })));
    });
    this.ns.on('connection', (socket) => this.accept(socket));
  }

  /** Agents with a socket on any node (through the live adapter when several nodes run). */
  async connectedAgents(): Promise<Set<number>> {
    const sockets = await this.ns.fetchSockets();
    return new Set(sockets.map((s) => (s.data.agent as AgentIdentity).agentId));
  }

  /** New work for a project: its idle agents ask for it now instead of at their next poll. */
  wake(projectId: string): void {
    this.ns.to(projectRoom(projectId)).emit('wake');
  }

  /** Tells the agent running a run to stop it (the run is already marked cancelled). */
  cancel(agentId: number, runId: number): void {
    this.ns.to(agentRoom(agentId)).emit('cancel', { runId });
  }

  /** Closes the connections of a deleted project's agents on this node; they stop their runs and do not reconnect. */
  disconnectProject(projectId: string): void {
    for (const socket of this.ns.sockets.values()) if ((socket.data.agent as AgentIdentity).projectId === projectId) socket.disconnect();
  }

  /** Closes a revoked agent's connections. */
  disconnect(agentId: number): void {
    this.ns.in(agentRoom(agentId)).disconnectSockets(true);
  }

  private accept(socket: Socket<AgentClientEvents, AgentServerEvents>): void {
    const agent = socket.data.agent as AgentIdentity;
    void socket.join([projectRoom(agent.projectId), agentRoom(agent.agentId)]);
    const failed = (what: string) => (err: unknown) => this.log.error({ err, agent: agent.name }, `lab agent ${what} failed`);

    socket.on('hello', (input: unknown, ack: unknown) => {
      const reply = replyOf<{ running: number[] }>(ack);
      const hello = checkHello(input);
      if (!hello.ok) return reply({ ok: false, error: `hello ${hello.error.field}: ${hello.error.message}` });
      void this.hello(agent, hello.value)
        .then((running) => {
          agent.ready = true;
          reply({ ok: true, running });
        })
        .catch((err: unknown) => {
          failed('hello')(err);
          reply({ ok: false, error: 'the server could not record this agent; retrying' });
        });
    });

    socket.on('next', (ack: unknown) => {
      const reply = replyOf<{ job: Job | null }>(ack);
      if (!agent.ready) return reply({ ok: false, error: 'say hello first' });
      void this.queue
        .claim(agent.agentId, agent.projectId, agent.ingestKey)
        .then((job) => {
          reply({ ok: true, job });
          if (job) this.live.labChanged(agent.projectId, { campaignId: job.campaignId, runId: job.runId });
        })
        .catch((err: unknown) => {
          failed('claim')(err);
          reply({ ok: false, error: 'the queue is not available now; retrying' });
        });
    });

    socket.on('progress', (input: unknown, ack: unknown) => {
      const reply = replyOf(ack);
      const p = checkProgress(input);
      if (!p.ok) return reply({ ok: false, error: `progress ${p.error.field}: ${p.error.message}` });
      void this.queue
        .progress(agent.agentId, p.value)
        .then((run) => {
          if (!run)
            return reply({ ok: false, error: `run ${p.value.runId} is no longer this agent's to run (cancelled or failed): stop it` });
          reply({ ok: true });
          this.live.labProgress(run.projectId, {
            campaignId: run.campaignId,
            runId: run.runId,
            fraction: p.value.fraction,
            message: p.value.message,
            callId: p.value.callId ?? null,
          });
        })
        .catch((err: unknown) => {
          failed('progress')(err);
          reply({ ok: false, error: 'progress not recorded; retrying' });
        });
    });

    socket.on('report', (input: unknown, ack: unknown) => {
      const reply = replyOf(ack);
      const r = checkReport(input);
      if (!r.ok) return reply({ ok: false, error: `report ${r.error.field}: ${r.error.message}` });
      void this.report(agent, r.value)
        .then(reply)
        .catch((err: unknown) => {
          failed('report')(err);
          reply({ ok: false, error: 'report not recorded; keep it and send it again', retry: true });
        });
    });

    socket.on('sfuEvents', (input: unknown, ack: unknown) => {
      const reply = replyOf<{ stored: number }>(ack);
      const events = checkSfuEvents(input);
      if (!events.ok) return reply({ ok: false, error: `sfuEvents ${events.error.field}: ${events.error.message}` });
      void storeSfuEvents(this.db.pool, agent.projectId, 'janus', readJanusEvents(eventsOf(events.value)))
        .then((stored) => reply({ ok: true, stored }))
        .catch((err: unknown) => {
          failed('sfuEvents')(err);
          reply({ ok: false, error: 'the SFU events were not stored; send them again', retry: true });
        });
    });

    socket.on('liveKitEvents', (input: unknown, ack: unknown) => {
      const reply = replyOf<{ stored: number }>(ack);
      const events = checkLiveKitEvents(input);
      if (!events.ok) return reply({ ok: false, error: `liveKitEvents ${events.error.field}: ${events.error.message}` });
      void storeSfuEvents(this.db.pool, agent.projectId, 'livekit', readLiveKitEvents(liveKitEventsOf(events.value)))
        .then((stored) => reply({ ok: true, stored }))
        .catch((err: unknown) => {
          failed('liveKitEvents')(err);
          reply({ ok: false, error: "LiveKit's events were not stored; send them again", retry: true });
        });
    });

    socket.on('disconnect', () => {
      void this.db.prisma.labAgent.update({ where: { id: BigInt(agent.agentId) }, data: { lastSeenAt: new Date() } }).catch(() => {});
      this.live.labChanged(agent.projectId, { campaignId: 0 });
    });
  }

  private async hello(agent: AgentIdentity, hello: AgentHello): Promise<number[]> {
    await this.db.prisma.labAgent.update({
      where: { id: BigInt(agent.agentId) },
      data: { lastSeenAt: new Date(), host: hello.host, capabilities: hello.capabilities },
    });
    this.live.labChanged(agent.projectId, { campaignId: 0 });
    return this.queue.stillRunning(agent.agentId, hello.running);
  }

  private async report(agent: AgentIdentity, report: RunReport): Promise<Ack> {
    let end: { result: unknown; outcome: unknown } | { error: string };
    if (report.ok) {
      const run = await this.db.prisma.labRun.findFirst({
        where: { id: BigInt(report.runId), agentId: BigInt(agent.agentId) },
        select: { scenario: true },
      });
      if (!run) return { ok: false, error: `run ${report.runId} is not this agent's` };
      try {
        end = { result: report.result, outcome: await computeOutcome(this.db, agent.projectId, run.scenario, report.result) };
      } catch (err) {
        end = { error: `the run ended but its results cannot be summarized: ${(err as Error).message}` };
      }
    } else {
      end = { error: report.error };
    }
    const done = await this.queue.finish(agent.agentId, report.runId, end);
    if (done === null) return { ok: false, error: `run ${report.runId} is no longer this agent's to report (cancelled or failed)` };
    if (done !== 'already') this.live.labChanged(done.projectId, { campaignId: done.campaignId, runId: done.runId });
    return { ok: true };
  }
}
