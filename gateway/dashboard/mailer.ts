import type { Logger } from '../../services/shared/index.js';

// The one way the dashboard sends mail (password resets, invitations). With no mail server configured
// the message is written to the log, and `npm start` prints it, so a local user can follow the link.
// An SMTP mailer is an extension point: implement Mailer over the deployment's mail library (none is
// installed; nodemailer would be the usual choice) and pass it as GatewayDeps.mailer.

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** The default: each message as one log line (info), text included, since no one else will deliver it. */
export function logMailer(logger: Logger): Mailer {
  return {
    async send(message) {
      logger.info({ mail: message }, `mail to ${message.to}: ${message.subject}`);
    },
  };
}

/** `npm start`: the message printed as a block, readable and with its link copyable. */
export function consoleMailer(write: (text: string) => void = (text) => process.stdout.write(text)): Mailer {
  return {
    async send(message) {
      write(`\n--- mail (no mail server configured) ---\nTo: ${message.to}\nSubject: ${message.subject}\n\n${message.text}\n---\n`);
    },
  };
}
