import { SMTPServer } from 'smtp-server';
import { eventually } from './eventually.js';

// A real SMTP server on loopback (smtp-server) for the dashboard's SMTP mailer (nodemailer) to
// deliver to: it requires the given credentials and keeps every message as received, raw.

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The authenticated user of the session that sent it. */
  user: string | undefined;
  raw: string;
}

export interface SmtpStandIn {
  port: number;
  received: ReceivedMail[];
  /** The first message to `address` whose raw text matches, once it has arrived. */
  waitFor(address: string, pattern?: RegExp): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startSmtpStandIn(credentials: { user: string; password: string }): Promise<SmtpStandIn> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    // Plain SMTP on loopback: the mailer's TLS requirement spares loopback (smtp-mailer.ts).
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: false,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === credentials.user && auth.password === credentials.password) callback(null, { user: auth.username });
      else callback(new Error('invalid credentials'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: session.user as string | undefined,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    received,
    waitFor: (address, pattern = /./) => eventually(`SMTP mail to ${address} (${pattern.source})`,
      async () => received.find((m) => m.to.includes(address) && pattern.test(m.raw)), 10_000),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The link in a received mail's text (quoted-printable soft breaks undone), as its recipient would click it. */
export function linkInRaw(raw: string): string {
  const text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const match = /https?:\/\/\S+\?token=[A-Za-z0-9_-]+/.exec(text);
  if (!match) throw new Error('no link in the received mail');
  return match[0];
}
