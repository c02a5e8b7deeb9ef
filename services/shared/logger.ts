import { pino, type Logger } from 'pino';

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

export function createLogger(name: string, level = 'info'): Logger {
  return pino({ name, level, redact: { paths: REDACT, censor: '[redacted]' } });
}
