import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
}

/**
 * A real SMTP server on loopback that keeps what it is sent, for tests of mail the product sends:
 * `url` goes into SMTP_URL; `next(to)` waits for the next mail to an address.
 */
export class MailReceiver {
  readonly mails: ReceivedMail[] = [];
  private readonly waiting: { to: string; resolve: (mail: ReceivedMail) => void }[] = [];
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData: (stream, _session, callback) => {
      simpleParser(stream)
        .then((parsed: ParsedMail) => {
          const to = [parsed.to].flat().flatMap((a) => a?.value.map((v) => v.address?.toLowerCase() ?? '') ?? []);
          const mail = { to, subject: parsed.subject ?? '', text: parsed.text ?? '' };
          this.mails.push(mail);
          for (const w of this.waiting.filter((w) => to.includes(w.to))) {
            this.waiting.splice(this.waiting.indexOf(w), 1);
            w.resolve(mail);
          }
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  /** The next mail to `to` (one already received and not yet taken counts). */
  next(to: string): Promise<ReceivedMail> {
    const address = to.toLowerCase();
    const kept = this.mails.find((m) => m.to.includes(address));
    if (kept) {
      this.mails.splice(this.mails.indexOf(kept), 1);
      return Promise.resolve(kept);
    }
    return new Promise((resolve) =>
      this.waiting.push({ to: address, resolve: (m) => (this.mails.splice(this.mails.indexOf(m), 1), resolve(m)) }),
    );
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The token of the rtcscope link in a mail's text (`…/page#token=…`). */
export function linkToken(text: string): string {
  const match = /#token=([A-Za-z0-9_-]+)/.exec(text);
  if (!match) throw new Error(`no rtcscope link in this mail:\n${text}`);
  return match[1]!;
}
