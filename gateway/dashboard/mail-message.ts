// What every mailer (log, console, SMTP) accepts; its own file so the transports need not import
// mailer.ts, which picks among them.
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/**
 * Where a mailed link ends up, as the forms that mail one answer (`link_delivery`): in the recipient's
 * mailbox, in the terminal of `npm start` (no mail server there), or nowhere (a deployment without
 * one: its log names the recipient only).
 */
export type LinkDelivery = 'email' | 'terminal' | 'none';

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  /** 'email' when absent: a transport that delivers (SMTP, a test's mailbox). */
  readonly delivery?: LinkDelivery;
  /** Ends the transport's connections, if it holds any. */
  close?(): Promise<void>;
}

/** What a form that mails a link answers as `link_delivery`. */
export const deliveryOf = (mailer: Mailer): LinkDelivery => mailer.delivery ?? 'email';
