import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { MAX_SFU_POST_BYTES } from '@rtcscope/protocol';
import type { JanusEventsTarget } from './janus-server.js';

/**
 * Where a lab agent's Janus posts its events: a loopback HTTP endpoint that hands each POST to the
 * agent (which holds no API key, only its agent token) to send on over its own connection. Janus is told
 * "200" only once the server stored the events, so it sends again what was not; its basic-auth password
 * is a secret of this relay's, so nothing else on the host can post through it.
 */
export class SfuEventsRelay {
  private constructor(
    private readonly server: Server,
    readonly target: JanusEventsTarget,
  ) {}

  static async open(forward: (post: unknown) => Promise<boolean>): Promise<SfuEventsRelay> {
    const secret = randomBytes(18).toString('base64url');
    const expected = `Basic ${Buffer.from(`rtcscope:${secret}`).toString('base64')}`;
    const server = createServer((request, response) => {
      const answer = (status: number, text: string) => response.writeHead(status, { 'content-type': 'text/plain' }).end(text);
      if (request.method !== 'POST') return answer(405, 'POST Janus events here');
      if (request.headers.authorization !== expected) return answer(401, 'unknown credentials');
      void bodyOf(request)
        .then((text) =>
          text === null
            ? answer(413, 'too large')
            : forward(JSON.parse(text) as unknown).then((ok) => answer(ok ? 200 : 502, ok ? 'stored' : 'not stored')),
        )
        .catch(() => answer(400, 'not JSON'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || !address) throw new Error('the SFU events relay has no port');
    return new SfuEventsRelay(server, { url: `http://127.0.0.1:${address.port}/`, apiKey: secret });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The request's body, or null past what the server takes (MAX_SFU_POST_BYTES). */
async function bodyOf(request: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_SFU_POST_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
