import { once } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import { fromBinary, toBinary, type DescMessage, type DescMethod, type Message } from '@bufbuild/protobuf';
import {
  Code, ConnectError, createHandlerContext, createMethodImplSpec, createServiceImplSpec,
  type ConnectRouter, type Interceptor, type MethodImplSpec,
} from '@connectrpc/connect';
import {
  createAsyncIterable, invokeUnaryImplementation, transformInvokeImplementation,
} from '@connectrpc/connect/protocol';
import { toHeaders, toMetadata, toStatus } from './grpc-metadata.js';

// The parts' services are written against Connect (ConnectRouter, ServiceImpl, interceptors), but
// served by @grpc/grpc-js: on this machine it answers a unary hop about twice as fast as
// connect-node's gRPC handler (test/bench/rpc-hop.ts). The handlers run through Connect's own
// invokeUnaryImplementation / transformInvokeImplementation, so interceptors, HandlerContext
// (signal, deadline, headers) and errors behave as under connect-node; only the wire is grpc-js.
// Those two helpers are exported by @connectrpc/connect/protocol for transports and adapters;
// the package version is pinned, and services/platform/rpc.test.ts holds the behaviour we rely on.

export interface GrpcServerOptions {
  /** Server interceptors, outermost last, as in Connect's router options. */
  interceptors: Interceptor[];
  /** Largest request message accepted per method; larger ones fail with RESOURCE_EXHAUSTED. */
  readMaxBytes: (method: DescMethod) => number;
}

/** What `routes` registers, as Connect's own method specs (unimplemented methods answer Unimplemented). */
export function methodSpecs(routes: (router: ConnectRouter) => void): MethodImplSpec[] {
  const specs: MethodImplSpec[] = [];
  const router: ConnectRouter = {
    // No Connect HTTP handlers exist here: the grpc-js server below is the only handler.
    handlers: [],
    service(service, impl) {
      specs.push(...Object.values(createServiceImplSpec(service, impl).methods));
      return this;
    },
    rpc(method, impl) {
      specs.push(createMethodImplSpec(method, impl));
      return this;
    },
  };
  routes(router);
  return specs;
}

/**
 * Runs `routes` once and returns routes that register the same implementations again: one set of
 * service objects (and whatever state they hold) behind a part's socket and its in-process callers.
 */
export function recordRoutes(routes: (router: ConnectRouter) => void): (router: ConnectRouter) => void {
  const specs = methodSpecs(routes);
  return (router) => {
    for (const spec of specs) router.rpc(spec.method, spec.impl as never);
  };
}

function serializer(schema: DescMessage) {
  return (message: Message) => {
    const bytes = toBinary(schema, message);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}

/**
 * What the deserializer hands on for a request over its method's limit: grpc-js answers a throwing
 * deserializer with INTERNAL, so the handler refuses it instead, before anything else runs.
 */
class Oversized {
  constructor(readonly bytes: number, readonly limit: number) {}
  get status(): Partial<grpc.StatusObject> {
    return { code: grpc.status.RESOURCE_EXHAUSTED, details: `request message of ${this.bytes} bytes is larger than the ${this.limit} this part reads` };
  }
}

function deserializer(schema: DescMessage, limit: number) {
  // Typed as a Message for grpc-js; each handler looks for an Oversized first.
  return (bytes: Buffer): Message => (bytes.length > limit ? new Oversized(bytes.length, limit) as unknown as Message : fromBinary(schema, bytes));
}

type AnyCall = grpc.ServerUnaryCall<Message, Message> | grpc.ServerWritableStream<Message, Message>;

/**
 * The reason ctx.signal carries once a call is answered. Connect's own handlers abort with none,
 * which makes a DOMException with a stack trace on every call (profiled: ~3 % of a hop's
 * CPU); after the answer the signal only tells leftover work to stop, and one reason made once says it.
 */
export const ANSWERED = new ConnectError('the call has been answered', Code.Canceled);

/** Connect's HandlerContext for one grpc-js call: its deadline, its cancellation, its metadata. */
function contextOf(method: DescMethod, call: AnyCall) {
  const deadline = call.getDeadline();
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  const ctx = createHandlerContext({
    service: method.parent,
    method,
    protocolName: 'grpc',
    requestMethod: 'POST',
    url: call.getPath(),
    timeoutMs: Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined,
    requestHeader: toHeaders(call.metadata),
  });
  // grpc-js ends a call at its deadline itself, as a cancellation: tell the handler which it was.
  // It also reports 'cancelled' after every call it has answered: by then ctx is aborted (ANSWERED),
  // and no error (with its stack trace) is made for a call that was not cancelled.
  call.once('cancelled', () => {
    if (ctx.signal.aborted) return;
    ctx.abort(Date.now() >= at
      ? new ConnectError('the operation timed out', Code.DeadlineExceeded)
      : new ConnectError('operation canceled', Code.Canceled));
  });
  return ctx;
}

function sendHeader(call: AnyCall, header: Headers): void {
  if (!header.keys().next().done) call.sendMetadata(toMetadata(header));
}

function unaryHandler(spec: MethodImplSpec & { kind: 'unary' }, interceptors: Interceptor[]) {
  return (call: grpc.ServerUnaryCall<Message, Message>, callback: grpc.sendUnaryData<Message>) => {
    if ((call.request as unknown) instanceof Oversized) return callback((call.request as unknown as Oversized).status);
    const ctx = contextOf(spec.method, call);
    // ctx is aborted before the answer goes out, so the 'cancelled' grpc-js reports after it finds ctx done.
    invokeUnaryImplementation(spec, ctx, call.request, interceptors).then(
      (message) => {
        ctx.abort(ANSWERED);
        sendHeader(call, ctx.responseHeader);
        callback(null, message, toMetadata(ctx.responseTrailer));
      },
      (err) => {
        ctx.abort(ANSWERED);
        callback(toStatus(err));
      },
    );
  };
}

function serverStreamHandler(spec: MethodImplSpec & { kind: 'server_streaming' }, interceptors: Interceptor[]) {
  return async (call: grpc.ServerWritableStream<Message, Message>) => {
    if ((call.request as unknown) instanceof Oversized) return call.emit('error', (call.request as unknown as Oversized).status);
    const ctx = contextOf(spec.method, call);
    try {
      const output = transformInvokeImplementation(spec, ctx, interceptors)(createAsyncIterable([call.request]));
      let first = true;
      for await (const message of output) {
        if (first) sendHeader(call, ctx.responseHeader);
        first = false;
        if (!call.write(message)) await once(call, 'drain', { signal: ctx.signal });
      }
      call.end(toMetadata(ctx.responseTrailer));
    } catch (err) {
      // A call the client cancelled has no one left to tell.
      if (!call.cancelled) call.emit('error', toStatus(err));
    } finally {
      ctx.abort(ANSWERED);
    }
  };
}

/** A grpc-js server (not listening) serving what `routes` registers, in binary protobuf. */
export function createGrpcServer(routes: (router: ConnectRouter) => void, opts: GrpcServerOptions): grpc.Server {
  const specs = methodSpecs(routes);
  // grpc-js reads up to the largest method's limit; each method's own is the deserializer's.
  const largest = Math.max(0, ...specs.map((spec) => opts.readMaxBytes(spec.method)));
  const server = new grpc.Server({ 'grpc.max_receive_message_length': largest });
  for (const spec of specs) {
    const path = `/${spec.method.parent.typeName}/${spec.method.name}`;
    const serialize = serializer(spec.method.output);
    const deserialize = deserializer(spec.method.input, opts.readMaxBytes(spec.method));
    if (spec.kind === 'unary') {
      server.register(path, unaryHandler(spec, opts.interceptors), serialize, deserialize, 'unary');
    } else if (spec.kind === 'server_streaming') {
      server.register(path, serverStreamHandler(spec, opts.interceptors), serialize, deserialize, 'serverStream');
    } else {
      throw new Error(`${path}: client and bidi streaming are not served (no part has such a method)`);
    }
  }
  return server;
}

/** Binds `server` to host:port (0 picks a free port) and resolves with the port. */
export function listenGrpc(server: grpc.Server, port: number, host: string): Promise<number> {
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return new Promise((resolve, reject) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound)));
  });
}

/** Graceful close: no new calls, in-flight ones finish; past `timeoutMs` every call is cut. */
export function closeGrpcServer(server: grpc.Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, timeoutMs).unref();
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
