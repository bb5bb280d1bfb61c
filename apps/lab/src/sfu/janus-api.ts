import { randomUUID } from 'node:crypto';

export interface Jsep {
  type: 'offer' | 'answer';
  sdp: string;
}

/** What a plugin answered a request with: its data and, for negotiations, Janus's SDP. */
export interface PluginReply {
  data: Record<string, unknown>;
  jsep?: Jsep;
}

interface JanusMessage {
  janus: string;
  transaction?: string;
  sender?: number;
  data?: { id: number };
  error?: { code: number; reason: string };
  plugindata?: { plugin: string; data: Record<string, unknown> };
  jsep?: Jsep;
}

/** How long a request may wait for its asynchronous reply (a negotiation) before it fails. */
const REPLY_TIMEOUT_MS = 20_000;

/**
 * One Janus session over its HTTP API, as a participant's client holds one: requests are POSTed, and
 * what Janus sends on its own (a negotiation's reply, events) is read by long polling, which also keeps
 * the session alive. See https://janus.conf.meetecho.com/docs/rest.html.
 */
export class JanusSession {
  private readonly waiting = new Map<string, { resolve: (m: JanusMessage) => void; reject: (e: Error) => void }>();
  private readonly polling = new AbortController();

  private constructor(
    private readonly root: string,
    readonly id: number,
  ) {}

  static async create(root: string): Promise<JanusSession> {
    const created = await post(root, { janus: 'create' });
    const session = new JanusSession(root, created.data!.id);
    void session.poll();
    return session;
  }

  /** A handle on a plugin, e.g. `janus.plugin.videoroom`. */
  async attach(plugin: string): Promise<JanusHandle> {
    const attached = await post(`${this.root}/${this.id}`, { janus: 'attach', plugin });
    return new JanusHandle(this, attached.data!.id);
  }

  /** Sends a plugin request on a handle; an asynchronous one (`ack`) resolves with its event. */
  async message(handle: number, body: Record<string, unknown>, jsep?: Jsep): Promise<PluginReply> {
    const transaction = randomUUID();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reply = new Promise<JanusMessage>((resolve, reject) => {
      this.waiting.set(transaction, { resolve, reject });
      timer = setTimeout(
        () => reject(new Error(`Janus did not answer "${String(body.request)}" within ${REPLY_TIMEOUT_MS / 1000} s`)),
        REPLY_TIMEOUT_MS,
      );
    });
    reply.catch(() => {});
    try {
      const sent = await post(`${this.root}/${this.id}/${handle}`, { janus: 'message', body, ...(jsep ? { jsep } : {}) }, transaction);
      return pluginReply(body, sent.janus === 'ack' ? await reply : sent);
    } finally {
      clearTimeout(timer);
      this.waiting.delete(transaction);
    }
  }

  /** Tells Janus this side's candidates are all in its SDP (no trickling). */
  async candidatesDone(handle: number): Promise<void> {
    await post(`${this.root}/${this.id}/${handle}`, { janus: 'trickle', candidate: { completed: true } });
  }

  /** Leaves: Janus closes the session's handles and their peer connections. */
  async destroy(): Promise<void> {
    this.polling.abort();
    for (const w of this.waiting.values()) w.reject(new Error('the Janus session ended'));
    this.waiting.clear();
    await post(`${this.root}/${this.id}`, { janus: 'destroy' }).catch(() => {});
  }

  private async poll(): Promise<void> {
    while (!this.polling.signal.aborted) {
      try {
        const res = await fetch(`${this.root}/${this.id}?maxev=10`, { signal: this.polling.signal });
        const body = (await res.json()) as JanusMessage | JanusMessage[];
        for (const m of Array.isArray(body) ? body : [body]) if (m.transaction) this.waiting.get(m.transaction)?.resolve(m);
      } catch {
        if (this.polling.signal.aborted) return;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
}

/** A plugin handle: one peer connection's worth of signalling. */
export class JanusHandle {
  constructor(
    private readonly session: JanusSession,
    readonly id: number,
  ) {}

  request(body: Record<string, unknown>, jsep?: Jsep): Promise<PluginReply> {
    return this.session.message(this.id, body, jsep);
  }

  candidatesDone(): Promise<void> {
    return this.session.candidatesDone(this.id);
  }
}

/** A plugin's answer to a request; a plugin error (`error` in its data) is thrown. */
function pluginReply(body: Record<string, unknown>, answer: JanusMessage): PluginReply {
  const data = answer.plugindata?.data ?? {};
  if (typeof data.error === 'string') throw new Error(`Janus ${String(body.request)}: ${data.error}`);
  return { data, ...(answer.jsep ? { jsep: answer.jsep } : {}) };
}

async function post(url: string, body: Record<string, unknown>, transaction: string = randomUUID()): Promise<JanusMessage> {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify({ ...body, transaction }) });
  if (!res.ok) throw new Error(`Janus answered ${res.status} to ${String(body.janus)}`);
  const reply = (await res.json()) as JanusMessage;
  if (reply.janus === 'error') throw new Error(`Janus ${String(body.janus)}: ${reply.error?.reason ?? 'error'}`);
  return reply;
}
