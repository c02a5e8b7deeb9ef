import { isIP } from 'node:net';
import nodemailer from 'nodemailer';
import type { SmtpSettings } from '../../services/platform/config.js';
import type { Mailer } from './mail-message.js';

// Dashboard mail through the deployment's SMTP server (nodemailer). Credentials go over TLS only:
// with SMTP_USER set, a server that offers no STARTTLS is refused, except on loopback (a local relay).
// nodemailer's own logger stays off: it would write the message, link and token included.

const isLoopback = (host: string) => host === 'localhost' || (isIP(host) !== 0 && (host.startsWith('127.') || host === '::1'));

/** A send that failed, without the SMTP conversation (which may quote the message). */
export class MailNotSent extends Error {
  constructor(readonly to: string, reason: string) {
    super(`mail to ${to} not sent: ${reason}`);
  }
}

export function smtpMailer(settings: SmtpSettings): Mailer {
  const transport = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    requireTLS: !settings.secure && settings.user !== undefined && !isLoopback(settings.host),
    auth: settings.user === undefined ? undefined : { user: settings.user, pass: settings.password },
    logger: false,
    debug: false,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(message) {
      try {
        await transport.sendMail({ from: settings.from, to: message.to, subject: message.subject, text: message.text });
      } catch (err) {
        const { code, responseCode } = err as { code?: string; responseCode?: number };
        throw new MailNotSent(message.to, [code, responseCode].filter(Boolean).join(' ') || 'the server refused it');
      }
    },
    async close() {
      transport.close();
    },
  };
}
