import type * as grpc from '@grpc/grpc-js';
import type { ConnectRouter, Transport } from '@connectrpc/connect';
import type { Logger } from 'pino';
import { watchBus, type EventBus } from './bus/index.js';
import type { Clock } from './clock.js';
import { isDatabaseClock } from './database-clock.js';
import type { Config, ServiceName } from './config.js';
import type { Pool } from './db.js';
import { watchPool, type Metrics } from './metrics.js';
import { relayFailures, watchOutbox } from './outbox-metrics.js';
import { withClientMetrics } from './rpc-metrics.js';
import { withClientTracing } from './rpc-tracing.js';
import { OutboxService } from '../../proto/gen/svc/outbox/v1/outbox_pb.js';
import { OutboxRelay } from './outbox.js';
import { followStream, republishedCounter } from './outbox-resend.js';
import { OutboxPruner } from './outbox-retention.js';
import { outboxRoutes } from './outbox-service.js';
import { recordRoutes } from './grpc-server.js';
import { drainTimeMs } from './drain.js';
import { watchDependencies } from './health-watch.js';
import { admittedCallers, withCredential } from './internal-callers.js';
import {
  HealthState, ServingStatus, closeRpcServer, createInProcessTransport, createRpcServer, type InProcessOptions,
} from './rpc.js';

/** What every service part is built from; tests pass real or in-memory pieces. */
export interface ServiceDeps {
  pool: Pool;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  config: Config;
  /** The process's metrics registry (services/platform/metrics.ts); unit tests without one record nothing. */
  metrics?: Metrics;
}

/** A built service part: its gRPC server (not listening yet) and its background work. */
export interface ServicePart {
  name: ServiceName;
  server: grpc.Server;
  /** A transport to the part's services from this process, through the same interceptors as `server`, as the platform's caller. */
  inProcess(how: InProcessOptions): Transport;
  health: HealthState;
  /** Set for parts that emit events: start-up checks that the bus can carry them. */
  relay?: OutboxRelay;
  /** Starts background work (outbox relay, consumers, schedulers). */
  start(): Promise<void>;
  /** Stops taking work, lets in-flight requests finish, stops background work. */
  close(): Promise<void>;
}

export interface PartSpec {
  name: ServiceName;
  /** Fully qualified proto service names, reported by grpc.health.v1.Health. */
  services: string[];
  routes(router: ConnectRouter): void;
  /** Parts that produce events relay their outbox. */
  relay?: OutboxRelay;
  start?(): Promise<void>;
  stop?(): Promise<void>;
}

/** The token a part presents and admits; a part is only ever built with one (requireForPart, startStack). */
function internalTokenOf(config: Config): string {
  if (!config.internalToken) throw new Error('a part needs config.internalToken (INTERNAL_TOKEN) to be built');
  return config.internalToken;
}

export function assemblePart(deps: ServiceDeps, spec: PartSpec): ServicePart {
  const relay = spec.relay;
  const token = internalTokenOf(deps.config);
  const callers = admittedCallers(token, deps.config.internalCallers);
  // A part with an outbox also lets operators see and re-publish the events it parked.
  const services = relay ? [...spec.services, OutboxService.typeName] : spec.services;
  const health = new HealthState(services);
  const routes = recordRoutes((router) => {
    spec.routes(router);
    if (relay) outboxRoutes(deps.pool, relay)(router);
  });
  const server = createRpcServer(routes, health, deps.logger, callers, deps.metrics);
  const pruner = relay && new OutboxPruner({
    pool: deps.pool, logger: deps.logger, retentionHours: deps.config.outboxRetentionHours, now: () => deps.clock.now(),
  });
  if (deps.metrics) instrument(deps.metrics, spec.name, deps.pool, deps.bus, relay);
  // Events a lost stream held go out again (outbox-resend.ts).
  const follower = relay && followStream({
    pool: deps.pool, bus: deps.bus, relay, logger: deps.logger, part: spec.name,
    republished: deps.metrics && republishedCounter(deps.metrics),
  });
  const watch = watchDependencies({
    pool: deps.pool, bus: deps.bus, health, intervalMs: deps.config.healthCheckIntervalMs, logger: deps.logger,
    clock: isDatabaseClock(deps.clock) ? deps.clock : undefined,
  });
  return {
    name: spec.name,
    server,
    // In-process callers go through the same check as remote ones, with the platform's token.
    inProcess: (how) => withClientTracing(withClientMetrics(
      withCredential(createInProcessTransport(routes, health, deps.logger, callers, deps.metrics, how), token), deps.metrics,
    )),
    health,
    relay,
    async start() {
      spec.relay?.start();
      follower?.start();
      pruner?.start();
      await spec.start?.();
      watch.start();
    },
    async close() {
      await watch.stop();
      health.setAll(ServingStatus.NOT_SERVING);
      await closeRpcServer(server, drainTimeMs(deps.config.shutdownTimeoutMs));
      await spec.stop?.();
      // Stopping the relay last flushes events of requests that finished during shutdown.
      await spec.relay?.drain();
      await spec.relay?.stop();
      await follower?.stop();
      await pruner?.stop();
    },
  };
}

/** The series every part has: its pool and event bus and, for a producer, its outbox. */
function instrument(metrics: Metrics, name: ServiceName, pool: Pool, bus: EventBus, relay: OutboxRelay | undefined): void {
  watchPool(metrics, name, pool);
  watchBus(metrics, name, bus);
  if (!relay) return;
  watchOutbox(metrics, name, pool);
  relay.countFailures(relayFailures(metrics), name);
}

export function createRelay(deps: ServiceDeps): OutboxRelay {
  return new OutboxRelay({
    pool: deps.pool,
    bus: deps.bus,
    logger: deps.logger,
    subjectPrefix: deps.config.natsSubjectPrefix,
    pollMs: deps.config.outboxPollMs,
    kickWaitMs: deps.config.outboxWaitMs,
    pack: deps.config.outboxPack,
  });
}
