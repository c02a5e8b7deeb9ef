import http2 from 'node:http2';
import { EventEmitter, on } from 'node:events';
import { ConnectError, type ConnectRouter, type Interceptor, type Transport } from '@connectrpc/connect';
import { connectNodeAdapter, createGrpcTransport } from '@connectrpc/connect-node';
import { Health, HealthCheckResponse_ServingStatus as Status } from '../../proto/gen/grpc/health/v1/health_pb.js';
import { DomainError, serviceError, toConnectError } from './errors.js';
import { MAX_EVENT_BYTES } from './limits.js';
import type { Logger } from './logger.js';

// Sessions of each server, so closeRpcServer can ask idle keep-alive connections to go away.
const sessions = new WeakMap<http2.Http2Server, Set<http2.ServerHttp2Session>>();

/** Serving state reported by grpc.health.v1.Health: "" is the whole server, otherwise a service name. */
export class HealthState {
  private readonly statuses = new Map<string, Status>();
  private readonly changes = new EventEmitter();

  constructor(services: string[]) {
    for (const s of ['', ...services]) this.statuses.set(s, Status.SERVING);
  }

  setAll(status: Status): void {
    for (const s of this.statuses.keys()) this.statuses.set(s, status);
    this.changes.emit('change');
  }

  get(service: string): Status | undefined {
    return this.statuses.get(service);
  }

  routes(router: ConnectRouter): void {
    const state = this;
    router.service(Health, {
      check(req) {
        const status = state.get(req.service);
        if (status === undefined) throw serviceError('resource_not_found', `unknown service ${req.service}`);
        return { status };
      },
      list() {
        return { statuses: Object.fromEntries([...state.statuses].map(([k, status]) => [k, { status }])) };
      },
      async *watch(req, ctx) {
        yield { status: state.get(req.service) ?? Status.SERVICE_UNKNOWN };
        for await (const _ of on(state.changes, 'change', { signal: ctx.signal })) {
          yield { status: state.get(req.service) ?? Status.SERVICE_UNKNOWN };
        }
      },
    });
  }
}

/**
 * Domain code (a part's own modules, below its handlers) throws DomainErrors; over the wire they
 * travel as ConnectErrors carrying the contract code. Converted here once for every handler. Any
 * other failure (a database refusing connections, a bug) reaches the caller as an opaque
 * `internal error`, so it is logged here, the one place that still sees its cause.
 */
function domainErrors(logger: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      if (err instanceof DomainError) throw toConnectError(err);
      if (!(err instanceof ConnectError)) logger.error({ err, method: req.method.name }, 'request failed');
      throw err;
    }
  };
}

/** An HTTP/2 server speaking gRPC, gRPC-Web and Connect for the given routes plus Health. Not listening. */
export function createRpcServer(
  routes: (router: ConnectRouter) => void, health: HealthState, logger: Logger,
): http2.Http2Server {
  const handler = connectNodeAdapter({
    // No request may carry more than its events can: the bus was checked to carry MAX_EVENT_BYTES.
    readMaxBytes: MAX_EVENT_BYTES,
    interceptors: [domainErrors(logger)],
    routes: (router) => {
      routes(router);
      health.routes(router);
    },
  });
  const server = http2.createServer(handler);
  const open = new Set<http2.ServerHttp2Session>();
  sessions.set(server, open);
  server.on('session', (s) => {
    open.add(s);
    s.on('close', () => open.delete(s));
  });
  return server;
}

/** Closes an HTTP/2 server gracefully: no new streams, in-flight ones finish, then sessions end. */
export function closeRpcServer(server: http2.Http2Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      for (const s of sessions.get(server) ?? []) s.destroy();
      resolve();
    }, timeoutMs).unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    for (const s of sessions.get(server) ?? []) s.close();
  });
}


/** Calls a peer part over real gRPC (HTTP/2, binary protobuf). */
export function createPeerTransport(baseUrl: string): Transport {
  return createGrpcTransport({ baseUrl });
}

export { Status as ServingStatus };
