import type { Transport } from '@connectrpc/connect';
import { JetStreamBus, checkBroker } from './bus/index.js';
import { createDatabaseClock } from './database-clock.js';
import { ConfigError, loadConfig, requireForPart, type Config, type ServiceName } from './config.js';
import { createPool } from './db.js';
import { createLogger, type Logger } from './logger.js';
import { listenGrpc } from './grpc-server.js';
import { Metrics, serveMetrics, type MetricsServer } from './metrics.js';
import { migrate } from './migrate.js';
import type { ServiceDeps, ServicePart } from './part.js';
import { StartUp, StartUpError } from './retry.js';
import { createPeerTransport } from './rpc.js';
import { startTracing } from './tracing.js';

/** Where a part keeps its tables and its migrations. */
export interface PartInfo<N extends string = ServiceName> {
  name: N;
  schema: string;
  dir: string;
}

/** How a part run on its own calls `peer`: its URL and INTERNAL_TOKEN, both checked by requireForPart. */
export function peerTransport(config: Config, peer: ServiceName, metrics?: Metrics): Transport {
  return createPeerTransport(config.peers[peer]!, config.internalToken!, metrics, config.requestBudgetMs);
}

/** Serves `metrics` on METRICS_PORT when it is set (a main.ts's business: built parts never listen). */
export async function serveMetricsIfConfigured(
  metrics: Metrics, config: Config, logger: Logger,
): Promise<MetricsServer | undefined> {
  if (config.metricsPort === undefined) return undefined;
  const server = await serveMetrics(metrics, config.metricsPort, config.host);
  logger.info({ port: server.port }, `metrics at :${server.port}/metrics`);
  return server;
}

/** Starts a part's gRPC server on host:port (0 picks a free port); resolves with the port. */
export const listen = listenGrpc;

/** Runs `stop` once on SIGTERM or SIGINT, then exits; exits anyway after `timeoutMs`. */
export function onShutdown(logger: Logger, stop: () => Promise<void>, timeoutMs: number): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // The last resort: whatever still runs (a client holding a connection, a pool that will not
    // end), the process exits within SHUTDOWN_TIMEOUT_MS, before Kubernetes has to kill it.
    setTimeout(() => {
      logger.error({ shutdownTimeoutMs: timeoutMs }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, timeoutMs).unref();
    stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGINT', () => handler('SIGINT'));
}

/** Start-up under START_TIMEOUT_MS; past it the process exits 1 naming the step it was on. */
export function beginStartUp(logger: Logger, config: Config): StartUp {
  return new StartUp({ logger, timeoutMs: config.startTimeoutMs, onTimeout: exitOnStartupError });
}

/** Reports a bad configuration by name, or a port taken by another process, and exits; anything else is a crash. */
export function exitOnStartupError(err: unknown): never {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78);
  }
  if (err instanceof StartUpError) {
    process.stderr.write(`start-up failed: ${err.message}\n`);
    process.exit(1);
  }
  const listen = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (listen?.code === 'EADDRINUSE' && listen.syscall === 'listen') {
    // Most often a second `npm start`, or another program on 8080: say so, not a stack trace.
    process.stderr.write(`start-up failed: port ${listen.port} on ${listen.address} is already in use by another process. ` +
      'Stop that process, or give this one a free port: PORT (the gateway, npm start), GRPC_PORT (a service part) ' +
      'or METRICS_PORT, whichever is set to it.\n');
    process.exit(1);
  }
  process.stderr.write(`start-up failed: ${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
}

/** The life of one service part run on its own (Kubernetes): the body of its main.ts. */
export async function runServicePart(
  info: PartInfo,
  peers: readonly ServiceName[],
  build: (deps: ServiceDeps) => ServicePart,
): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
    requireForPart(config, info.name, peers);
  } catch (err) {
    exitOnStartupError(err);
  }
  const logger = createLogger(info.name, config.logLevel);
  // Before anything is built: the part's pool, transports and interceptors trace only if it is on.
  const tracing = await startTracing(info.name, config);
  const pool = createPool(config.databaseUrl!, info.schema, config.databasePoolSize, config.database);
  const startUp = beginStartUp(logger, config);
  try {
    // Postgres and NATS may come up after the part (Kubernetes starts everything at once), and a
    // restarted NATS may be slow to answer JetStream calls: each step waits (retry.ts).
    await startUp.step('Postgres connection', () => pool.query('SELECT 1'));
    await startUp.step('Postgres migrations', () => migrate(pool, info.schema, info.dir));
    const bus = await startUp.step('NATS JetStream connection', () => JetStreamBus.connect({
      url: config.natsUrl!,
      stream: config.natsStream,
      subjectPrefix: config.natsSubjectPrefix,
      replicas: config.natsStreamReplicas,
      placement: config.natsStreamPlacement,
      checkIntervalMs: config.healthCheckIntervalMs,
      logger,
      name: info.name,
      startUp,
    }));
    const metrics = new Metrics();
    const clock = createDatabaseClock({
      pool, logger, metrics, part: info.name, maxSkewMs: config.clockSkewMaxMs, intervalMs: config.clockSkewCheckMs,
    });
    await startUp.step('clock skew against Postgres', () => clock.measure());
    clock.start();
    const part = build({ pool, bus, clock, logger, config, metrics });
    // A part that emits events refuses a bus that cannot carry its largest one.
    if (part.relay) checkBroker(await startUp.step('NATS JetStream stream check', () => bus.facts()), logger);
    await part.start();
    const port = await listen(part.server, config.grpcPort, config.host);
    startUp.done();
    logger.info({ port }, `${info.name} serving gRPC`);
    const metricsServer = await serveMetricsIfConfigured(metrics, config, logger);
    onShutdown(logger, async () => {
      clock.stop();
      await part.close();
      await metricsServer?.close();
      await bus.close();
      await pool.end();
      await tracing?.shutdown();
    }, config.shutdownTimeoutMs);
  } catch (err) {
    await pool.end().catch(() => undefined);
    exitOnStartupError(err);
  }
}
