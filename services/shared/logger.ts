import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

// Secrets must never reach a log line, whatever object they ride in on.
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-operator-token"]',
  'headers.authorization',
  '*.secret',
  '*.api_key_secret',
  '*.operatorToken',
  '*.signing_secret',
];

/** A pino logger that censors secrets; `destination` defaults to stdout. */
export function createLogger(name: string, level = 'info', destination?: DestinationStream): Logger {
  return pino({ name, level, redact: { paths: REDACT, censor: '[redacted]' } }, destination);
}
