import {
  create, isMessage, toBinary, type DescMessage, type DescMethod, type DescMethodUnary, type Message, type MessageInitShape,
} from '@bufbuild/protobuf';
import {
  Code, ConnectError, createHandlerContext, type ConnectRouter, type Interceptor, type MethodImplSpec,
  type Transport, type UnaryResponse,
} from '@connectrpc/connect';
import { invokeUnaryImplementation } from '@connectrpc/connect/protocol';
import { ANSWERED, methodSpecs } from './grpc-server.js';

// Parts that share one process (all-in-one/) call each other here: the implementation gets the
// request message itself and the caller gets the response message itself, with no encoding, no
// envelope, no HTTP emulation and no client-side abort controllers. What a caller relies on over
// gRPC is kept, through the same pieces the gRPC server uses (services/platform/grpc-server.ts):
// Connect's HandlerContext (deadline → ctx.signal, headers, the caller's cancellation) and
// invokeUnaryImplementation with the server's interceptor list (tracing, metrics, domain errors,
// the internal caller check). A failure reaches the caller as the router transport delivers it:
// the same code, message and metadata, and "internal error" for anything not a ConnectError, its
// cause kept on the server's side (domainErrors logged it). Streaming calls (only Health.Watch,
// which no in-process caller makes) go through the router transport.
//
// Messages are plain objects in protobuf-es v2, so caller and implementation share them. Neither
// side mutates what it got (docs/decisions/2026-11-28-the-outcome-paths-remaining-cost-and-the-card.md); the test
// stacks freeze both messages (freezeMessages) so that a change breaking that fails the suites.

export interface DirectTransportOptions {
  /** The server interceptors, outermost first, exactly as the part's gRPC server runs them. */
  interceptors: Interceptor[];
  /** The largest request message the part's gRPC server reads: a larger one is RESOURCE_EXHAUSTED here too. */
  readMaxBytes: (method: DescMethod) => number;
  /** Where streaming calls go; made at their first use. */
  streams: () => Transport;
  /** Deep-freeze requests and responses, so that a side that mutates a shared message throws (tests). */
  freezeMessages?: boolean;
}

type UnarySpec = MethodImplSpec & { kind: 'unary' };

export function createDirectTransport(
  routes: (router: ConnectRouter) => void, opts: DirectTransportOptions,
): Transport {
  const unary = new Map<string, UnarySpec>();
  for (const spec of methodSpecs(routes)) if (spec.kind === 'unary') unary.set(path(spec.method), spec);
  let streams: Transport | undefined;
  const seal = opts.freezeMessages ? deepFreeze : <T>(m: T) => m;

  return {
    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>, signal: AbortSignal | undefined, timeoutMs: number | undefined,
      header: ConstructorParameters<typeof Headers>[0] | undefined, input: MessageInitShape<I>,
    ): Promise<UnaryResponse<I, O>> {
      const url = path(method);
      const spec = unary.get(url);
      if (!spec) throw new ConnectError(`${url} is not served by this part`, Code.Unimplemented);
      // The client hands over what its caller passed: a message, or the fields to make one of.
      const message = seal(isMessage(input, method.input) ? input : create(method.input, input));
      refuseOversized(method, message, opts.readMaxBytes(method));
      const ctx = createHandlerContext({
        service: method.parent,
        method,
        protocolName: 'in-process',
        requestMethod: 'POST',
        url,
        // As Connect's transports read it: none, or not positive, is no deadline.
        timeoutMs: timeoutMs !== undefined && timeoutMs > 0 ? timeoutMs : undefined,
        requestSignal: signal,
        requestHeader: header,
      });
      try {
        const output = await untilAborted(ctx.signal, () => invokeUnaryImplementation(spec, ctx, message, opts.interceptors));
        return {
          stream: false, service: method.parent, method, header: ctx.responseHeader, trailer: ctx.responseTrailer,
          message: seal(output) as UnaryResponse<I, O>['message'],
        };
      } catch (err) {
        throw asReceived(err);
      } finally {
        // As the gRPC server does once a call is answered: whatever still listens to ctx.signal stops.
        ctx.abort(ANSWERED);
      }
    },
    stream: (...args) => (streams ??= opts.streams()).stream(...args),
  };
}

const path = (method: DescMethod) => `/${method.parent.typeName}/${method.name}`;

/**
 * The call's answer, unless its signal fires first: at the deadline (DEADLINE_EXCEEDED) or when
 * the caller gives up (CANCELLED), the caller stops waiting even if the implementation does not.
 */
function untilAborted<T>(signal: AbortSignal, call: () => Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(ConnectError.from(signal.reason, Code.Canceled));
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(ConnectError.from(signal.reason, Code.Canceled));
    signal.addEventListener('abort', stop, { once: true });
    call().then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

/**
 * A failure as the router transport's client receives it: a ConnectError's code, message and
 * metadata (the error's own, as grpc-js carries it: services/platform/grpc-metadata.ts); anything
 * else is an opaque internal error. Never the server's object itself, whose cause (a stack, a
 * query) stays on the server's side.
 */
function asReceived(err: unknown): ConnectError {
  if (!(err instanceof ConnectError)) return new ConnectError('internal error', Code.Internal);
  return new ConnectError(err.rawMessage, err.code, new Headers(err.metadata));
}

/** Bytes of a tag and a length or a scalar value, more than binary protobuf ever spends on them. */
const PER_VALUE = 32;

/**
 * More bytes than `value` takes in binary protobuf, without encoding it: a UTF-16 code unit is at
 * most three bytes of UTF-8, and every field, map key, element and scalar gets PER_VALUE.
 */
function sizeAtMost(value: unknown): number {
  if (typeof value === 'string') return PER_VALUE + 3 * value.length;
  if (value instanceof Uint8Array) return PER_VALUE + value.byteLength;
  if (value === null || typeof value !== 'object') return PER_VALUE;
  let size = PER_VALUE;
  if (Array.isArray(value)) {
    for (const v of value) size += sizeAtMost(v);
    return size;
  }
  const fields = value as Record<string, unknown>;
  for (const k in fields) size += 3 * k.length + sizeAtMost(fields[k]);
  return size;
}

/** RESOURCE_EXHAUSTED past the limit the gRPC server reads; encoded only when the bound is not enough. */
export function refuseOversized(method: DescMethod, message: Message, limit: number): void {
  if (sizeAtMost(message) <= limit) return;
  const size = toBinary(method.input, message).byteLength;
  if (size > limit) {
    throw new ConnectError(`request message of ${size} bytes is larger than the ${limit} this part reads`, Code.ResourceExhausted);
  }
}

function deepFreeze<T>(value: T): T {
  // Typed arrays (bytes fields) cannot be frozen: a write into one is the one change this does not catch.
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
  return value;
}
