import type * as grpc from '@grpc/grpc-js';
import type { ConnectRouter, Transport } from '@connectrpc/connect';
import type { Logger } from 'pino';
import type { EventBus } from './bus/index.js';
import type { Clock } from './clock.js';
import type { Config, ServiceName } from './config.js';
import type { Pool } from './db.js';
import { OutboxService } from '../../proto/gen/svc/outbox/v1/outbox_pb.js';
import { OutboxRelay } from './outbox.js';
import { outboxRoutes } from './outbox-service.js';
import { recordRoutes } from './grpc-server.js';
import {
  HealthState, ServingStatus, closeRpcServer, createInProcessTransport, createRpcServer,
} from './rpc.js';

/** What every service part is built from; tests pass real or in-memory pieces. */
export interface ServiceDeps {
  pool: Pool;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  config: Config;
}

/** A built service part: its gRPC server (not listening yet) and its background work. */
export interface ServicePart {
  name: ServiceName;
  server: grpc.Server;
  /** The part's services called in this process, through the same interceptors as `server`. */
  transport: Transport;
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

export function assemblePart(deps: ServiceDeps, spec: PartSpec): ServicePart {
  const relay = spec.relay;
  // A part with an outbox also lets operators see and re-publish the events it parked.
  const services = relay ? [...spec.services, OutboxService.typeName] : spec.services;
  const health = new HealthState(services);
  const routes = recordRoutes((router) => {
    spec.routes(router);
    if (relay) outboxRoutes(deps.pool, relay)(router);
  });
  const server = createRpcServer(routes, health, deps.logger);
  return {
    name: spec.name,
    server,
    transport: createInProcessTransport(routes, health, deps.logger),
    health,
    relay,
    async start() {
      spec.relay?.start();
      await spec.start?.();
    },
    async close() {
      health.setAll(ServingStatus.NOT_SERVING);
      await closeRpcServer(server, deps.config.shutdownTimeoutMs);
      await spec.stop?.();
      // Stopping the relay last flushes events of requests that finished during shutdown.
      await spec.relay?.drain();
      await spec.relay?.stop();
    },
  };
}

export function createRelay(deps: ServiceDeps): OutboxRelay {
  return new OutboxRelay({
    pool: deps.pool,
    bus: deps.bus,
    logger: deps.logger,
    subjectPrefix: deps.config.natsSubjectPrefix,
    pollMs: deps.config.outboxPollMs,
  });
}
