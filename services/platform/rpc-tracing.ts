import type { DescMethod } from '@bufbuild/protobuf';
import type { Interceptor, Transport } from '@connectrpc/connect';
import { SpanKind, contextOf, inSpan, injectInto, tracingOn, withRequestId } from './tracing.js';

// gRPC spans, client and server side, for the one transport wrapper and the one interceptor list
// every part and the gateway use (services/platform/rpc.ts, part.ts): the caller's span travels as
// W3C `traceparent` metadata, so the server span continues the caller's trace, and the gateway
// request it serves travels as `x-request-id`, for the server's log lines. Applied only
// while tracing is on, so a process without OTEL_EXPORTER_OTLP_ENDPOINT runs none of this.

function attributes(method: DescMethod) {
  return { 'rpc.system': 'grpc', 'rpc.service': method.parent.typeName, 'rpc.method': method.name };
}

const spanName = (method: DescMethod) => `${method.parent.typeName}/${method.name}`;

/** Server interceptor: a SERVER span per call, the child of the caller's `traceparent`, serving its `x-request-id`. */
export function serverTracing(): Interceptor[] {
  if (!tracingOn()) return [];
  return [(next) => (req) => inSpan(
    spanName(req.method), SpanKind.SERVER, attributes(req.method), () => next(req),
    withRequestId(contextOf(req.header.get('traceparent')), req.header.get('x-request-id')),
  )];
}

/** A transport whose calls are CLIENT spans carrying their context in `traceparent`. */
export function withClientTracing(transport: Transport): Transport {
  if (!tracingOn()) return transport;
  const headerOf = (init: ConstructorParameters<typeof Headers>[0]) => {
    const header = new Headers(init);
    injectInto((k, v) => header.set(k, v));
    return header;
  };
  return {
    unary: (method, signal, timeoutMs, header, ...rest) => inSpan(
      spanName(method), SpanKind.CLIENT, attributes(method),
      () => transport.unary(method, signal, timeoutMs, headerOf(header), ...rest),
    ),
    // A stream's span covers opening it: its messages are read later, by the caller.
    stream: (method, signal, timeoutMs, header, ...rest) => inSpan(
      spanName(method), SpanKind.CLIENT, attributes(method),
      () => transport.stream(method, signal, timeoutMs, headerOf(header), ...rest),
    ),
  };
}
