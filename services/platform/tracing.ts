import {
  context, createContextKey, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span,
} from '@opentelemetry/api';
import type { Config, OtlpProtocol } from './config.js';

// OpenTelemetry traces (docs/decisions/2026-11-24-traces-one-opentelemetry-trace-per-payment-inert.md, "Traces"). Only @opentelemetry/api is loaded by default:
// until startTracing registers a provider, every call below is the API's no-op (no span is
// recorded, nothing is exported). The SDK and the OTLP exporter are imported only when
// OTEL_EXPORTER_OTLP_ENDPOINT (config.otlpEndpoint) is set.

const TRACER = 'svc';
let started: Promise<Tracing> | undefined;

export interface Tracing {
  /** Exports what is still buffered and stops; called on shutdown. */
  shutdown(): Promise<void>;
}

/** The OTLP/HTTP traces address of an endpoint, as the OTel spec derives it from OTEL_EXPORTER_OTLP_ENDPOINT. */
function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * The official exporter of `protocol`, imported only now. Over HTTP (JSON or protobuf) spans go
 * to `<endpoint>/v1/traces`; over gRPC to the endpoint itself, as the specification says.
 */
async function exporterFor(protocol: OtlpProtocol, endpoint: string) {
  if (protocol === 'grpc') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-grpc');
    return new OTLPTraceExporter({ url: endpoint });
  }
  const { OTLPTraceExporter } = protocol === 'http/protobuf'
    ? await import('@opentelemetry/exporter-trace-otlp-proto')
    : await import('@opentelemetry/exporter-trace-otlp-http');
  return new OTLPTraceExporter({ url: tracesUrl(endpoint) });
}

/**
 * Registers the process's tracer provider (batching, OTLP export over config.otlpProtocol, W3C
 * trace context), once per process: in `npm start` all parts share it. Without
 * config.otlpEndpoint nothing happens.
 */
export function startTracing(serviceName: string, config: Pick<Config, 'otlpEndpoint' | 'otlpProtocol'>): Promise<Tracing | undefined> {
  if (!config.otlpEndpoint) return Promise.resolve(undefined);
  started ??= register(serviceName, config.otlpEndpoint, config.otlpProtocol);
  return started;
}

async function register(serviceName: string, endpoint: string, protocol: OtlpProtocol): Promise<Tracing> {
  const [{ NodeTracerProvider, BatchSpanProcessor }, exporter, { resourceFromAttributes }, { W3CTraceContextPropagator }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'), exporterFor(protocol, endpoint),
      import('@opentelemetry/resources'), import('@opentelemetry/core'),
    ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 500 })],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  return {
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
      started = undefined;
    },
  };
}

/** Runs fn inside a new span (a child of the active one, or of `parent`), ending it with fn's outcome. */
export async function inSpan<T>(
  name: string, kind: SpanKind, attributes: Attributes, fn: (span: Span) => Promise<T>, parent: Context = context.active(),
): Promise<T> {
  const span = trace.getTracer(TRACER).startSpan(name, { kind, attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
    throw err;
  } finally {
    span.end();
  }
}

/** The active trace context as a W3C `traceparent` value, or undefined when nothing is traced. */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/**
 * Adds the active context's `traceparent` (when there is one), and the gateway request's id it
 * serves (`x-request-id`), to headers about to leave the process.
 */
export function injectInto(set: (key: string, value: string) => void): void {
  const traceparent = currentTraceparent();
  if (traceparent) set('traceparent', traceparent);
  const requestId = context.active().getValue(REQUEST_ID);
  if (typeof requestId === 'string') set('x-request-id', requestId);
}

// The gateway request a trace serves, carried in the context beside its span (and between
// processes as `x-request-id`) so a part's log lines of a gRPC call name it too. Only while
// tracing is on: carrying it otherwise would cost an AsyncLocalStorage on every call.
const REQUEST_ID = createContextKey('svc.request_id');
// A caller's header is logged as sent, within reason.
const MAX_REQUEST_ID_LENGTH = 128;

/** `ctx` serving the request `requestId` (none: ctx as it is). */
export function withRequestId(ctx: Context, requestId: string | null | undefined): Context {
  return requestId ? ctx.setValue(REQUEST_ID, requestId.slice(0, MAX_REQUEST_ID_LENGTH)) : ctx;
}

/** The context a received `traceparent` continues; the root context when there is none. */
export function contextOf(traceparent: string | null | undefined): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

export interface TraceFields {
  request_id?: string;
  trace_id?: string;
  span_id?: string;
}

/** The ids of a span as log fields. */
export function spanFields(span: Span): TraceFields {
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/**
 * `trace_id` and `span_id` for a log line written inside a traced span (pino mixin), after the
 * `request_id` it serves when there is one; {} otherwise.
 */
export function traceFields(): TraceFields {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const requestId = context.active().getValue(REQUEST_ID);
  return typeof requestId === 'string' ? { request_id: requestId, ...spanFields(span) } : spanFields(span);
}

/** Whether a span is active here: work outside any trace (polling) starts none of its own. */
export function inTrace(): boolean {
  return trace.getActiveSpan() !== undefined;
}

/** Whether a tracer provider is registered: instrumentation with a cost of its own checks this first. */
export function tracingOn(): boolean {
  return started !== undefined;
}

export { SpanKind };

/**
 * Runs fn as a span continuing the trace of a received `traceparent` (an event's message header,
 * a stored webhook event's context); without tracing, just runs fn.
 */
export function continueTrace<T>(
  name: string, kind: SpanKind, traceparent: string | null | undefined, attributes: Attributes, fn: () => Promise<T>,
): Promise<T> {
  if (!tracingOn()) return fn();
  return inSpan(name, kind, attributes, fn, contextOf(traceparent));
}
