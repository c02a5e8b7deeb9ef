// What every mailer (log, console, SMTP) accepts; its own file so the transports need not import
// mailer.ts, which picks among them.
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  /** Ends the transport's connections, if it holds any. */
  close?(): Promise<void>;
}
