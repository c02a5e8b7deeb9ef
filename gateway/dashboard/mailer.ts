import type { Config } from '../../services/platform/config.js';
import type { Logger } from '../../services/platform/logger.js';
import type { Mailer } from './mail-message.js';
import { smtpMailer } from './smtp-mailer.js';

// The one way the dashboard sends mail (password resets, invitations, registration links). A
// deployment sets SMTP_HOST and the mail goes through its server (smtp-mailer.ts). Without one, the
// gateway logs that a mail was due, to whom and about what, never its text: the text carries a
// link whose token signs in (docs/decisions/2026-11-27-mailed-links-and-team.md, "Mailed links and team"). `npm start`
// prints the whole message to the terminal instead, for the person at that terminal.

/** No transport: one info line per mail, recipient and subject only (the text holds a token). */
export function logMailer(logger: Logger): Mailer {
  return {
    delivery: 'none',
    async send(message) {
      logger.info({ mail: { to: message.to, subject: message.subject } },
        `mail to ${message.to} not delivered (no SMTP_HOST): ${message.subject}`);
    },
  };
}

/** `npm start`: the message printed as a block, readable and with its link copyable. */
export function consoleMailer(write: (text: string) => void = (text) => process.stdout.write(text)): Mailer {
  return {
    delivery: 'terminal',
    async send(message) {
      write(`\n--- mail (no mail server configured) ---\nTo: ${message.to}\nSubject: ${message.subject}\n\n${message.text}\n---\n`);
    },
  };
}

/** The deployment's mailer: SMTP when configured, else the log's record of what was not delivered. */
export function configuredMailer(config: Config, logger: Logger): Mailer {
  return config.smtp ? smtpMailer(config.smtp) : logMailer(logger);
}

/**
 * What a gateway run on its own (the chart) says at start about mail: each setting the dashboard's
 * mail needs and lacks, by its variable.
 */
export function mailWarnings(config: Config): string[] {
  return [
    ...(config.publicBaseUrl ? [] : [
      'PUBLIC_BASE_URL is not set: the dashboard refuses password resets, invitations and registrations '
        + '(503 not_configured) rather than mail links to an address it would have to guess',
    ]),
    ...(config.smtp ? [] : [
      'SMTP_HOST is not set: no mail transport, so dashboard mail is not delivered '
        + '(the log records recipient and subject only, never the link)',
    ]),
  ];
}
