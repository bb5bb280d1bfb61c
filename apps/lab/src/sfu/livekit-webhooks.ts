import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { MAX_LIVEKIT_WEBHOOK_BYTES } from '@rtcscope/protocol';

/**
 * Where a run's LiveKit posts its webhooks: a loopback endpoint at a path of its own (nothing else on the
 * host knows it), each post handed on to `forward` — to the server with the run's API key, or over a lab
 * agent's connection. LiveKit is told "200" only once the server stored the event, so it sends again what
 * was not.
 */
export class LiveKitWebhookRelay {
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async open(forward: (event: unknown) => Promise<boolean>): Promise<LiveKitWebhookRelay> {
    const path = `/${randomBytes(18).toString('base64url')}`;
    const server = createServer((request, response) => {
      const answer = (status: number, text: string) => response.writeHead(status, { 'content-type': 'text/plain' }).end(text);
      if (request.method !== 'POST' || request.url !== path) return answer(404, 'not here');
      const chunks: Buffer[] = [];
      let size = 0;
      request.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_LIVEKIT_WEBHOOK_BYTES) chunks.push(chunk);
      });
      request.on('end', () => {
        if (size > MAX_LIVEKIT_WEBHOOK_BYTES) return answer(413, 'too large');
        let event: unknown;
        try {
          event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return answer(400, 'not JSON');
        }
        void forward(event).then(
          (ok) => answer(ok ? 200 : 502, ok ? 'stored' : 'not stored'),
          () => answer(502, 'not stored'),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || !address) throw new Error("the LiveKit webhooks' relay has no port");
    return new LiveKitWebhookRelay(server, `http://127.0.0.1:${address.port}${path}`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A `forward` that posts each event to an rtcscope server's `/sfu/livekit/events` with an API key of the ingest scope. */
export function postLiveKitEvents(server: string, apiKey: string): (event: unknown) => Promise<boolean> {
  const url = new URL('/api/v1/sfu/livekit/events', server).toString();
  return async (event) => {
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify(event),
    }).catch(() => null);
    return answer?.ok === true;
  };
}
