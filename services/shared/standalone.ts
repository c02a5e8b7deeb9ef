import { JetStreamBus, checkBroker } from './bus/index.js';
import { systemClock } from './clock.js';
import { ConfigError, loadConfig, requireForPart, type Config, type ServiceName } from './config.js';
import { createPool } from './db.js';
import { createLogger, type Logger } from './logger.js';
import { listenGrpc } from './grpc-server.js';
import { migrate } from './migrate.js';
import type { ServiceDeps, ServicePart } from './part.js';
import { retryAtStart } from './retry.js';

/** Where a part keeps its tables and its migrations. */
export interface PartInfo<N extends string = ServiceName> {
  name: N;
  schema: string;
  dir: string;
}

/** Starts a part's gRPC server on host:port (0 picks a free port); resolves with the port. */
export const listen = listenGrpc;

/** Runs `stop` once on SIGTERM or SIGINT, then exits. */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
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

/** Reports a bad configuration by name and exits; anything else is a crash. */
export function exitOnStartupError(err: unknown): never {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78);
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
  const pool = createPool(config.databaseUrl!, info.schema, config.databasePoolSize);
  try {
    // Postgres and NATS may come up after the part (Kubernetes starts everything at once): wait.
    await retryAtStart('Postgres', () => pool.query('SELECT 1'), { logger });
    await retryAtStart('Postgres', () => migrate(pool, info.schema, info.dir), { logger });
    const bus = await retryAtStart('NATS JetStream', () => JetStreamBus.connect({
      url: config.natsUrl!,
      stream: config.natsStream,
      subjectPrefix: config.natsSubjectPrefix,
      logger,
      name: info.name,
    }), { logger });
    const part = build({ pool, bus, clock: systemClock, logger, config });
    // A part that emits events refuses a bus that cannot carry its largest one.
    if (part.relay) checkBroker(await bus.facts(), logger);
    await part.start();
    const port = await listen(part.server, config.grpcPort, config.host);
    logger.info({ port }, `${info.name} serving gRPC`);
    onShutdown(logger, async () => {
      await part.close();
      await bus.close();
      await pool.end();
    });
  } catch (err) {
    await pool.end().catch(() => undefined);
    exitOnStartupError(err);
  }
}
