import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { context, trace, type Context, type Span } from '@opentelemetry/api';
import { spanBoundLogger, type Logger } from '../../services/platform/logger.js';
import { SpanKind, contextOf, tracingOn, withRequestId } from '../../services/platform/tracing.js';

// The gateway's request span: the root of a payment's trace, or the child of the caller's own
// `traceparent` header when it sends one (W3C trace context). It starts when Fastify makes the
// request's logger, so every line of the request, its first included, carries the span's
// trace_id and span_id beside its request_id. Its context is made active for the request's hooks
// and handler, so every gRPC call the handler makes is a child span carrying the request's id.
// Installed only while tracing is on.

const spans = new WeakMap<IncomingMessage, { span: Span; ctx: Context }>();

/** Fastify's `childLoggerFactory` while tracing is on (Fastify's own otherwise): starts the request's span. */
export function tracedRequestLogger(): FastifyServerOptions['childLoggerFactory'] {
  if (!tracingOn()) return undefined;
  const tracer = trace.getTracer('svc');
  return (logger, bindings, options, raw) => {
    const req = raw as IncomingMessage;
    const header = req.headers.traceparent;
    const parent = typeof header === 'string' ? contextOf(header) : context.active();
    // Named and given its route in onRequest, once Fastify knows the route.
    const requestId = String(bindings.request_id);
    const span = tracer.startSpan(req.method ?? 'HTTP', {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': req.method, 'svc.request_id': requestId },
    }, parent);
    spans.set(req, { span, ctx: withRequestId(trace.setSpan(parent, span), requestId) });
    return spanBoundLogger(logger as Logger, span, bindings, options) as FastifyBaseLogger;
  };
}

/** Continues hook processing inside the request's span context. */
function enter(request: FastifyRequest, done: () => void): void {
  const entry = spans.get(request.raw);
  if (entry) context.with(entry.ctx, done);
  else done();
}

/**
 * Ends the request's span once its response is sent or its connection lost. Called by the
 * onRequest hook, and by the framework error handler for the requests that never reach it.
 */
export function endSpanWithResponse(request: FastifyRequest, reply: FastifyReply): void {
  const entry = spans.get(request.raw);
  if (!entry) return;
  reply.raw.once('close', () => {
    entry.span.setAttribute('http.response.status_code', reply.statusCode);
    if (reply.statusCode >= 500) entry.span.setStatus({ code: 2 });
    entry.span.end();
  });
}

export function installHttpTracing(app: FastifyInstance): void {
  if (!tracingOn()) return;
  app.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    spans.get(request.raw)?.span.updateName(`${request.method} ${route}`).setAttribute('http.route', route);
    endSpanWithResponse(request, reply);
    enter(request, done);
  });
  // A body is read from the socket's events, outside the context: entered again once it is parsed.
  app.addHook('preValidation', (request, _reply, done) => enter(request, done));
}
