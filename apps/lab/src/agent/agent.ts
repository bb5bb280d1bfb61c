import type {
  Ack,
  AgentCapabilities,
  AgentClientEvents,
  AgentServerEvents,
  Job,
  RunProgress,
  RunReport,
  RunResult,
} from '@rtcscope/experiments';
import { parseScenario, type Scenario } from '@rtcscope/scenario';
import { hostname } from 'node:os';
import { io, type Socket } from 'socket.io-client';

/** Runs one job; rejects when the signal aborts or the run fails. */
export type RunJob = (
  job: Job,
  scenario: Scenario,
  signal: AbortSignal,
  progress: (p: Omit<RunProgress, 'runId'>) => void,
) => Promise<RunResult>;

export interface AgentOptions {
  server: string;
  token: string;
  name: string;
  version: string;
  capabilities: AgentCapabilities;
  run: RunJob;
  log: (line: string) => void;
  /** How often an idle agent asks for work without being woken, and a running one reports. */
  pollMs?: number;
}

interface Current {
  job: Job;
  abort: AbortController;
  last: Omit<RunProgress, 'runId'>;
}

/**
 * A lab agent: connects to the server with its agent token, says what it can do, takes one run at a
 * time from the project's queue, streams progress (which also tells the server it is alive) and
 * reports the result. A report is kept and sent again until the server acknowledges it, across
 * reconnects; a run the server no longer wants (cancelled, or failed for silence) is stopped.
 */
export class LabAgent {
  private readonly socket: Socket<AgentServerEvents, AgentClientEvents>;
  private current: Current | null = null;
  private pending: RunReport | null = null;
  private ready = false;
  private asking = false;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(private readonly o: AgentOptions) {
    this.socket = io(`${o.server.replace(/\/$/, '')}/agent`, {
      auth: { token: o.token },
      transports: ['websocket'],
      reconnectionDelayMax: 5000,
    });
    this.socket.on('connect', () => void this.hello());
    this.socket.on('disconnect', (reason) => {
      this.ready = false;
      // This agent closed it (close() says so).
      if (reason === 'io client disconnect') return;
      // The server ends an agent's connection only when its token was revoked or its project deleted.
      if (reason !== 'io server disconnect') return o.log('disconnected from the server; reconnecting');
      o.log('the server ended this connection: the agent token was revoked or its project deleted; create a new token to go on');
      this.stop('the agent token was revoked');
    });
    this.socket.on('connect_error', (err) => o.log(`cannot connect to ${o.server}/agent: ${err.message}`));
    this.socket.on('wake', () => void this.tick());
    this.socket.on('cancel', (m: { runId?: unknown }) => {
      if (this.current && m?.runId === this.current.job.runId) this.stop('cancelled from the dashboard');
    });
    this.timer = setInterval(() => void this.tick(), o.pollMs ?? 5000);
  }

  /** Stops taking work, stops a running run and disconnects. */
  close(): void {
    clearInterval(this.timer);
    this.stop('the agent is shutting down');
    this.socket.close();
    this.o.log('stopped');
  }

  /**
   * Sends what a run's SFU reported of its room (one POST of Janus's event handler) to the server, for
   * the agent's project. True once the server stored it; false when it refused it or did not answer
   * (Janus sends it again).
   */
  async sfuEvents(post: unknown): Promise<boolean> {
    const ack = await this.ask((s) => s.emitWithAck('sfuEvents', post));
    if (ack && !ack.ok) this.o.log(`the server refused the SFU's events: ${ack.error}`);
    return ack?.ok === true;
  }

  /** Sends one of a run's LiveKit webhook events to the server, for the agent's project; true once stored (LiveKit sends it again). */
  async liveKitEvents(event: unknown): Promise<boolean> {
    const ack = await this.ask((s) => s.emitWithAck('liveKitEvents', event));
    if (ack && !ack.ok) this.o.log(`the server refused LiveKit's events: ${ack.error}`);
    return ack?.ok === true;
  }

  private async hello(): Promise<void> {
    const running = this.current ? [this.current.job.runId] : [];
    const ack = await this.ask((s) =>
      s.emitWithAck('hello', { name: this.o.name, host: hostname(), version: this.o.version, capabilities: this.o.capabilities, running }),
    );
    if (!ack?.ok) return this.o.log(`the server refused this agent: ${ack ? ack.error : 'no answer'}`);
    this.o.log(
      `connected to ${this.o.server} as "${this.o.name}" (${this.o.capabilities.backend}, up to ${this.o.capabilities.maxConcurrentCalls} calls)`,
    );
    this.ready = true;
    if (this.current && !(ack.running ?? []).includes(this.current.job.runId))
      this.stop('the server ended this run while the agent was away');
    await this.tick();
  }

  /** One step of the loop: deliver a pending report, keep a running run alive, or ask for work. */
  private async tick(): Promise<void> {
    if (!this.ready || this.asking) return;
    this.asking = true;
    try {
      if (this.pending) await this.deliver();
      else if (this.current) await this.sendProgress(this.current);
      else await this.take();
    } finally {
      this.asking = false;
    }
  }

  private async take(): Promise<void> {
    const ack = await this.ask((s) => s.emitWithAck('next'));
    if (!ack?.ok || !ack.job) return;
    const job = ack.job;
    const parsed = parseScenario(job.scenario);
    if (!parsed.ok) {
      this.pending = {
        runId: job.runId,
        ok: false,
        error: `the job's scenario is invalid at ${parsed.error.field}: ${parsed.error.message}`,
      };
      return this.deliver();
    }
    const current: Current = { job, abort: new AbortController(), last: { fraction: 0, message: 'starting Chromium' } };
    this.current = current;
    this.o.log(`run ${job.runId}: ${parsed.value.id}, repetition ${job.repetition}, campaign ${job.campaignId}`);
    void this.o
      .run(job, parsed.value, current.abort.signal, (p) => {
        current.last = p;
        void this.sendProgress(current);
      })
      .then(
        (result): RunReport => ({ runId: job.runId, ok: true, result }),
        (err: unknown): RunReport => ({
          runId: job.runId,
          ok: false,
          error: current.abort.signal.aborted ? String(current.abort.signal.reason) : ((err as Error).message ?? String(err)),
        }),
      )
      .then((report) => {
        this.o.log(`run ${job.runId}: ${report.ok ? 'finished' : `failed: ${report.error}`}`);
        this.current = null;
        this.pending = report;
        return this.tick();
      });
  }

  private async sendProgress(current: Current): Promise<void> {
    const ack = await this.ask((s) => s.emitWithAck('progress', { runId: current.job.runId, ...current.last }));
    if (ack && !ack.ok && this.current === current) this.stop(ack.error);
  }

  private async deliver(): Promise<void> {
    const report = this.pending;
    if (!report) return;
    const ack = await this.ask((s) => s.emitWithAck('report', report));
    if (!ack) return;
    if (!ack.ok && ack.retry) return this.o.log(`report of run ${report.runId} not taken yet: ${ack.error}`);
    if (!ack.ok) this.o.log(`report of run ${report.runId} dropped: ${ack.error}`);
    this.pending = null;
    await this.take();
  }

  private stop(reason: string): void {
    if (!this.current || this.current.abort.signal.aborted) return;
    this.o.log(`run ${this.current.job.runId}: stopping (${reason})`);
    this.current.abort.abort(reason);
  }

  /** A request's answer, or null when none came (disconnected, or not within 15 s). */
  private async ask<T extends Ack>(
    request: (socket: ReturnType<Socket<AgentServerEvents, AgentClientEvents>['timeout']>) => Promise<T>,
  ): Promise<T | null> {
    try {
      return await request(this.socket.timeout(15_000));
    } catch {
      return null;
    }
  }
}
