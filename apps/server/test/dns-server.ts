import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import dnsPacket from 'dns-packet';

/**
 * A DNS server on loopback, as a domain's owner runs one: it answers TXT questions from its records
 * (a name it has none for: NXDOMAIN), so tests prove a domain without asking the world's DNS.
 */
export class TestDnsServer {
  /** TXT records by lower-case name. */
  readonly txt = new Map<string, string[]>();
  private socket: Socket | null = null;

  static async start(): Promise<TestDnsServer> {
    const server = new TestDnsServer();
    const socket = createSocket('udp4');
    socket.on('message', (message, from) => {
      const query = dnsPacket.decode(message);
      const question = query.questions?.[0];
      const records = question?.type === 'TXT' ? server.txt.get(question.name.toLowerCase()) : undefined;
      const answer = dnsPacket.encode({
        type: 'response',
        id: query.id,
        flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (records ? 0 : 3),
        questions: query.questions,
        answers: (records ?? []).map((data) => ({ type: 'TXT' as const, name: question!.name, ttl: 60, class: 'IN' as const, data })),
      });
      socket.send(answer, from.port, from.address);
    });
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    server.socket = socket;
    return server;
  }

  /** The address to give a resolver: `127.0.0.1:port`. */
  get address(): string {
    return `127.0.0.1:${(this.socket!.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.socket?.close(() => resolve()) ?? resolve());
  }
}
