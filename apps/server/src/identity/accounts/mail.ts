import nodemailer from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends invitations and password resets; null where the operator set no SMTP server (links are shown instead). */
export type Mailer = ((mail: Mail) => Promise<void>) | null;

/** A mailer through `smtpUrl` (smtp://user:password@host:port, or smtps://), sending as `from`. */
export function smtpMailer(smtpUrl: string | undefined, from: string): Mailer {
  if (!smtpUrl) return null;
  const transport = nodemailer.createTransport(smtpUrl);
  return async (mail) => {
    await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
  };
}
