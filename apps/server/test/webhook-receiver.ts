import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The verification recipe of docs/alerts.md, as a receiver writes it: the signature over
 * `id.timestamp.body` with the secret's key, compared in constant time, and a timestamp within 5 minutes.
 */
export function verifyDelivery(secret: string, headers: IncomingHttpHeaders, body: string, nowS = Date.now() / 1000): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  if (Math.abs(nowS - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(' ').some((s) => {
    const [version, value] = s.split(',');
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export interface Received {
  id: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A webhook receiver on loopback, as a customer runs one: it keeps what it is sent, takes each id once
 * (a redelivery is answered 200 and not kept again), and can be stopped, started again on its port, told
 * to answer an error, or to hold requests unanswered until released.
 */
export class WebhookReceiver {
  /** Every request, redeliveries included. */
  readonly requests: Received[] = [];
  /** Each id once, in the order first received. */
  readonly accepted: Received[] = [];
  status = 200;
  private holding = false;
  private held: ServerResponse[] = [];
  private server: Server | null = null;

  private constructor(public port: number) {}

  static async start(port = 0): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(port);
    await receiver.listen();
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async listen(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const got: Received = {
          id: String(req.headers['webhook-id']),
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        this.requests.push(got);
        if (this.holding) return void this.held.push(res);
        if (this.status === 200 && !this.accepted.some((a) => a.id === got.id)) this.accepted.push(got);
        res.writeHead(this.status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Requests from now on are held open, unanswered. */
  hold(): void {
    this.holding = true;
  }

  /** Held requests are dropped (their sender sees the connection end) and new ones answered again. */
  release(): void {
    this.holding = false;
    for (const res of this.held.splice(0)) res.destroy();
  }

  /** Stops listening: deliveries are refused until `listen()`. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.release();
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
