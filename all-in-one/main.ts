// `npm start`: the whole service. With DATABASE_URL / NATS_URL it uses those; without them an
// embedded Postgres (data under DATA_DIR) and an in-process event bus, in one process. With both,
// WORKERS processes each run the whole service on the shared port (workers.ts).
import cluster from 'node:cluster';
import { consoleMailer } from '../gateway/index.js';
import { JetStreamBus, MemoryBus, checkBroker, type EventBus } from '../services/platform/bus/index.js';
import { loadConfig, type Config } from '../services/platform/config.js';
import { createPool } from '../services/platform/db.js';
import { createLogger, type Logger } from '../services/platform/logger.js';
import { Metrics } from '../services/platform/metrics.js';
import {
  beginStartUp, serveMetricsIfConfigured, exitOnStartupError, onShutdown,
} from '../services/platform/standalone.js';
import { startTracing } from '../services/platform/tracing.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres.js';
import { loadOrCreateOperatorToken } from '../services/platform/operator-token.js';
import { fillLocalKeys } from './local-keys.js';
import { ONE_PROCESS_DEFAULTS, startStack } from './stack.js';
import { announce } from './start-up-text.js';
import { WorkerStartError, reportReady, superviseWorkers, workerCount } from './workers.js';

// A laptop run listens on loopback only and keeps its logs quiet unless told otherwise.
const env: Record<string, string | undefined> = { HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...ONE_PROCESS_DEFAULTS, ...process.env };
// Hosted-page links point at this gateway unless the deployment says where customers reach it.
env.PUBLIC_BASE_URL ??= `http://${env.HOST === '0.0.0.0' ? '127.0.0.1' : env.HOST}:${env.PORT ?? 8080}`;

/** The operator token and local keys, made in DATA_DIR on first start (before any worker reads them). */
async function localSecrets(config: Config): Promise<string[]> {
  if (!config.operatorToken) config.operatorToken = (await loadOrCreateOperatorToken(config.dataDir)).token;
  return fillLocalKeys(config);
}

/** Several workers: this process only supervises; they serve. */
async function supervise(config: Config, logger: Logger, count: number): Promise<void> {
  const localKeys = await localSecrets(config);
  const workers = superviseWorkers(count, logger);
  let stopping: Promise<boolean> | undefined;
  const stop = () => (stopping ??= workers.stop());
  const onSignal = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    // Past SHUTDOWN_TIMEOUT_MS each worker exits 1 by itself; this one waits for them.
    void stop().then((clean) => process.exit(clean ? 0 : 1));
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  let baseUrl: string;
  try {
    baseUrl = await workers.ready;
  } catch (err) {
    await stop();
    process.exit(err instanceof WorkerStartError ? err.exitCode : 1);
  }
  // Once, here: the workers never make the first merchant nor print.
  await announce({ config, databaseUrl: config.databaseUrl!, baseUrl, embedded: false, localKeys, workers: count });
}

/** The whole service in this process: alone, or as one of several workers. */
async function serve(config: Config, logger: Logger): Promise<void> {
  // One tracer provider for all six parts of this process, before any is built.
  const tracing = await startTracing('svc', config);
  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    process.stdout.write(`Starting embedded Postgres (data in ${config.dataDir}/postgres)...\n`);
    embedded = await startEmbeddedPostgres(config.dataDir, config.embeddedPostgresPort, (line) => logger.debug(line));
    databaseUrl = embedded.url;
  }
  const startUp = beginStartUp(logger, config);
  const bus: EventBus = config.natsUrl
    ? await startUp.step('NATS JetStream connection', () => JetStreamBus.connect({
        url: config.natsUrl!, stream: config.natsStream, subjectPrefix: config.natsSubjectPrefix, logger, name: 'svc', startUp,
      }))
    : new MemoryBus();
  // Every part runs here, producers included: the bus must carry their largest event.
  if (bus instanceof JetStreamBus) checkBroker(await startUp.step('NATS JetStream stream check', () => bus.facts()), logger);
  // A worker reads what the supervisor made; keys the environment does not set live in DATA_DIR.
  const localKeys = await localSecrets(config);
  // DATABASE_URL's server may still be starting: wait for it as a lone part does.
  const probe = createPool(databaseUrl, 'public', 1);
  await startUp.step('Postgres connection', () => probe.query('SELECT 1')).finally(() => probe.end());

  // Without SMTP_HOST, dashboard mail (registration, reset and invitation links) is printed here for the person at the terminal.
  // One registry and one endpoint (METRICS_PORT) for all six parts of this process.
  const metrics = new Metrics();
  const stack = await startStack({ config, databaseUrl, bus, logger, mailer: config.smtp ? undefined : consoleMailer(), metrics });
  const metricsServer = await serveMetricsIfConfigured(metrics, config, logger);
  startUp.done();

  onShutdown(logger, async () => {
    await metricsServer?.close();
    await stack.close();
    await bus.close();
    await embedded?.stop();
    await tracing?.shutdown();
  }, config.shutdownTimeoutMs);

  if (cluster.isWorker) reportReady(stack.baseUrl);
  else await announce({ config, databaseUrl, baseUrl: stack.baseUrl, embedded: embedded !== undefined, localKeys, workers: 1, metricsPort: metricsServer?.port });
}

try {
  const config = loadConfig(env);
  const logger = createLogger('svc', config.logLevel);
  const count = workerCount(config);
  if (cluster.isPrimary && count > 1) await supervise(config, logger, count);
  else await serve(config, logger);
} catch (err) {
  exitOnStartupError(err);
}
