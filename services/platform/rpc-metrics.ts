import { Code, ConnectError, type Interceptor, type Transport } from '@connectrpc/connect';
import type { DescMethod } from '@bufbuild/protobuf';
import { secondsSince, type Metrics } from './metrics.js';

// gRPC calls, served and made, by service, method and status code, with their latency. Service and
// method names come from the proto descriptors (never from a request), checked by shape all the
// same: a proto name has no underscore-prefixed id in it.

const SERVICE = { matches: (v: string) => /^[a-z][a-z0-9]*(\.[a-z0-9]+)*\.[A-Z][A-Za-z0-9]*$/.test(v) };
const METHOD = { matches: (v: string) => /^[A-Z][A-Za-z0-9]*$/.test(v) };
/** grpc status names in the form Prometheus users know (OK, NOT_FOUND, ...). */
const CODES = ['OK', ...Object.values(Code).filter((c): c is string => typeof c === 'string')
  .map((c) => c.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase())];

function codeName(err: unknown): string {
  if (err === undefined) return 'OK';
  const code = ConnectError.from(err).code;
  return Code[code].replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
}

function series(metrics: Metrics, side: 'server' | 'client') {
  const labels = { service: SERVICE, method: METHOD, code: CODES };
  return {
    calls: metrics.counter(`svc_grpc_${side}_calls_total`, `gRPC calls ${side === 'server' ? 'served' : 'made'}, by final status code`, labels),
    seconds: metrics.histogram(`svc_grpc_${side}_duration_seconds`, `gRPC ${side}-side call latency (streams: until the answer starts)`, labels),
  };
}

function recorder(metrics: Metrics, side: 'server' | 'client') {
  const { calls, seconds } = series(metrics, side);
  return (method: DescMethod, startedMs: number, err?: unknown) => {
    const labels = { service: method.parent.typeName, method: method.name, code: codeName(err) };
    calls.inc(labels);
    seconds.observe(labels, secondsSince(startedMs));
  };
}

/** Server interceptor, the outermost: it sees the code the caller gets, refusals of unknown callers included. */
export function serverMetrics(metrics: Metrics): Interceptor {
  const record = recorder(metrics, 'server');
  return (next) => async (req) => {
    const started = performance.now();
    try {
      const res = await next(req);
      record(req.method, started);
      return res;
    } catch (err) {
      record(req.method, started, err);
      throw err;
    }
  };
}

/** A transport that records each call it makes (a peer over the network, or a part in this process). */
export function withClientMetrics(transport: Transport, metrics: Metrics | undefined): Transport {
  if (!metrics) return transport;
  const record = recorder(metrics, 'client');
  const timed = async <T>(method: DescMethod, call: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      const res = await call();
      record(method, started);
      return res;
    } catch (err) {
      record(method, started, err);
      throw err;
    }
  };
  return {
    unary: (method, ...rest) => timed(method, () => transport.unary(method, ...rest)),
    stream: (method, ...rest) => timed(method, () => transport.stream(method, ...rest)),
  };
}
