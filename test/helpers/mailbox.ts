import type { MailMessage, Mailer } from '../../gateway/index.js';
import { eventually } from './eventually.js';

/**
 * A test stack's mail: every message the dashboard sends, kept in order, as the recipients'
 * mailboxes would hold them. The dashboard mails after it answers (gateway/dashboard/after-answer.ts),
 * so a test waits for a mail rather than reading it at once.
 */
export class Mailbox implements Mailer {
  readonly messages: MailMessage[] = [];

  async send(message: MailMessage): Promise<void> {
    this.messages.push(message);
  }

  to(address: string): MailMessage[] {
    return this.messages.filter((m) => m.to === address);
  }

  /** The `count`-th mail to `address` whose subject matches (any, by default), once it has arrived. */
  async waitFor(address: string, subject: RegExp = /./, count = 1): Promise<MailMessage> {
    return eventually(`mail ${count} to ${address} (${subject.source})`,
      async () => this.to(address).filter((m) => subject.test(m.subject))[count - 1], 10_000);
  }
}

/** The link in a mail, as its recipient would click it. */
export function linkIn(message: MailMessage): string {
  const match = /https?:\/\/\S+\?token=\S+/.exec(message.text);
  if (!match) throw new Error(`no link in the mail to ${message.to}: ${message.subject}`);
  return match[0];
}
