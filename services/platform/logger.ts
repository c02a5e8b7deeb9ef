import type { Span } from '@opentelemetry/api';
import { pino, type Bindings, type ChildLoggerOptions, type DestinationStream, type Logger } from 'pino';
import { spanFields, traceFields, type TraceFields } from './tracing.js';

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
  // Provider accounts' credentials (services/payments/provider-credentials), wherever they travel.
  '*.credentials',
  '*.secret_key',
  '*.webhook_secret',
  '*.api_key',
  '*.hmac_key',
  '*.basic_auth_password',
  '*.secretKey',
  '*.webhookSecret',
  '*.apiKey',
  '*.hmacKey',
];

// Marks a logger (and, pino children being prototypes of their parent, its children) whose
// bindings already hold a span's ids.
const SPAN_BOUND = Symbol('svc.spanBound');

/**
 * A line written inside a traced span carries its trace_id and span_id; without tracing this is
 * the API's no-op lookup and adds nothing. A span-bound logger has them in its bindings already.
 */
function mixin(_line: object, _level: number, logger: Logger): TraceFields {
  return (logger as { [SPAN_BOUND]?: true })[SPAN_BOUND] ? {} : traceFields();
}

/** A pino logger that censors secrets; `destination` defaults to stdout. */
export function createLogger(name: string, level = 'info', destination?: DestinationStream): Logger {
  return pino({ name, level, mixin, redact: { paths: REDACT, censor: '[redacted]' } }, destination);
}

/**
 * A child whose every line carries the ids of `span` beside `bindings`, in whatever async context
 * it is written: Fastify writes a request's first and last lines outside the request's span.
 */
export function spanBoundLogger(logger: Logger, span: Span, bindings: Bindings, options?: ChildLoggerOptions): Logger {
  const child = logger.child({ ...bindings, ...spanFields(span) }, options);
  (child as { [SPAN_BOUND]?: true })[SPAN_BOUND] = true;
  return child;
}
