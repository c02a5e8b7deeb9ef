import { EventEmitter, on } from 'node:events';
import type * as grpc from '@grpc/grpc-js';
import {
  Code, ConnectError, createRouterTransport, type ConnectRouter, type Interceptor, type Transport,
} from '@connectrpc/connect';
import { Health, HealthCheckResponse_ServingStatus as Status } from '../../proto/gen/grpc/health/v1/health_pb.js';
import { DomainError, serviceError, toConnectError } from '../contract/errors.js';
import type { InProcessCalls } from './config.js';
import { createDirectTransport, refuseOversized } from './direct-transport.js';
import { closeGrpcServer, createGrpcServer } from './grpc-server.js';
import { createGrpcJsTransport } from './grpc-transport.js';
import { DATABASE_UNAVAILABLE, databaseUnavailable } from './db-errors.js';
import { withDefaultDeadline } from './deadline.js';
import { authenticateCallers, withCredential, type InternalCaller } from './internal-callers.js';
import { LARGEST_READ_BYTES, readLimitOf } from './read-limits.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { serverMetrics, withClientMetrics } from './rpc-metrics.js';
import { serverTracing, withClientTracing } from './rpc-tracing.js';

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
 * travel as ConnectErrors carrying the contract code. Converted here once for every handler. A
 * database that is down, full, unreachable or too slow (db-errors.ts) is `service_unavailable`,
 * worth a retry; any other failure (a bug) reaches the caller as an opaque `internal error`, so it
 * is logged here, the one place that still sees its cause.
 */
function domainErrors(logger: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      if (err instanceof DomainError) throw toConnectError(err);
      if (err instanceof ConnectError) throw err;
      // A call its caller gave up on: what the handler threw on the way out is no news to anyone.
      if (req.signal.aborted) throw ConnectError.from(err, Code.Canceled);
      if (databaseUnavailable(err)) {
        logger.warn({ err: (err as Error).message, method: req.method.name }, 'request refused: the database cannot serve');
        throw serviceError('service_unavailable', DATABASE_UNAVAILABLE);
      }
      logger.error({ err, method: req.method.name }, 'request failed');
      // Its message (a query, a database's refusal) stays here, as the direct transport keeps it.
      throw new ConnectError('internal error', Code.Internal);
    }
  };
}

function serverOptions(logger: Logger, callers: readonly InternalCaller[], metrics?: Metrics) {
  // Each method reads at most its own limit (read-limits.ts).
  // The first interceptor is the outermost: the caller is checked before any handler sees the request,
  // and the metrics see the status code the caller gets.
  // The trace's server span encloses all of them (it is empty while tracing is off).
  const interceptors = [domainErrors(logger), authenticateCallers(callers)];
  const measured = metrics ? [serverMetrics(metrics), ...interceptors] : interceptors;
  return { readMaxBytes: readLimitOf, interceptors: [...serverTracing(), ...measured] };
}

function withHealth(routes: (router: ConnectRouter) => void, health: HealthState) {
  return (router: ConnectRouter) => {
    routes(router);
    health.routes(router);
  };
}

/**
 * A gRPC server (@grpc/grpc-js, binary protobuf) for the given routes plus Health. Not listening.
 * It speaks gRPC only: connect-node also spoke gRPC-Web and the Connect protocol, which no caller
 * of a part uses, and cost twice the CPU per call (test/bench/rpc-hop.ts). Only `callers` are
 * served (services/platform/internal-callers.ts); Health answers anyone.
 */
export function createRpcServer(
  routes: (router: ConnectRouter) => void, health: HealthState, logger: Logger, callers: readonly InternalCaller[],
  metrics?: Metrics,
): grpc.Server {
  return createGrpcServer(withHealth(routes, health), serverOptions(logger, callers, metrics));
}

/** How a part is called by parts in its own process (all-in-one/). */
export interface InProcessOptions {
  /** IN_PROCESS_CALLS: the implementation called with the message itself, or through Connect's router transport. */
  calls: InProcessCalls;
  /** Freeze the messages handed across (direct only): the test stacks prove that no side mutates a shared one. */
  freezeMessages?: boolean;
}

/**
 * The same routes, interceptors and limits as createRpcServer, called in this process without a
 * socket: directly (services/platform/direct-transport.ts) or through Connect's router transport,
 * which encodes every message as gRPC would.
 */
export function createInProcessTransport(
  routes: (router: ConnectRouter) => void, health: HealthState, logger: Logger, callers: readonly InternalCaller[],
  metrics: Metrics | undefined, how: InProcessOptions,
): Transport {
  const served = withHealth(routes, health);
  const options = serverOptions(logger, callers, metrics);
  // Connect's router has one limit for every method: the largest, and each method's own checked first.
  const router = () => createRouterTransport(served, {
    router: { ...options, readMaxBytes: LARGEST_READ_BYTES, interceptors: [perMethodLimit, ...options.interceptors] },
  });
  if (how.calls === 'router') return router();
  return createDirectTransport(served, { ...options, streams: router, freezeMessages: how.freezeMessages });
}

const perMethodLimit: Interceptor = (next) => async (req) => {
  if (!req.stream) refuseOversized(req.method, req.message, readLimitOf(req.method));
  return next(req);
};

/** Closes a server gracefully: no new calls, in-flight ones finish, then the rest are cut. */
export function closeRpcServer(server: grpc.Server, timeoutMs: number): Promise<void> {
  return closeGrpcServer(server, timeoutMs);
}

/**
 * Calls a peer part over real gRPC (HTTP/2, binary protobuf), through a @grpc/grpc-js channel,
 * presenting `internalToken` (INTERNAL_TOKEN) as its credential; its calls are counted in `metrics`
 * and, while tracing is on, are spans whose context travels in `traceparent`. A unary call given
 * no deadline of its own gets `budgetMs` (REQUEST_BUDGET_MS), carried to the callee as grpc-timeout.
 */
export function createPeerTransport(baseUrl: string, internalToken: string, metrics?: Metrics, budgetMs?: number): Transport {
  const transport = withCredential(createGrpcJsTransport(baseUrl), internalToken);
  return withClientTracing(withClientMetrics(budgetMs === undefined ? transport : withDefaultDeadline(transport, budgetMs), metrics));
}

export { Status as ServingStatus };
