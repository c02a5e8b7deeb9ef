import { loadConfig, requireForPart } from '../services/platform/config.js';
import { createDatabaseClock } from '../services/platform/database-clock.js';
import { createPool } from '../services/platform/db.js';
import { createLogger } from '../services/platform/logger.js';
import { Metrics } from '../services/platform/metrics.js';
import { migrate } from '../services/platform/migrate.js';
import {
  beginStartUp, serveMetricsIfConfigured, exitOnStartupError, onShutdown,
} from '../services/platform/standalone.js';
import { startTracing } from '../services/platform/tracing.js';
import { DOCS_PATH, PART, build, createGatewayClients, deploymentUrl, mailWarnings } from './index.js';
import { closeGateway } from './http/shutdown.js';

try {
  const config = loadConfig();
  // The gateway publishes no events and consumes none: Postgres and the five parts, no NATS.
  requireForPart(config, 'gateway', ['payments', 'routing-risk', 'webhooks', 'ledger', 'payouts'], { nats: false });
  const peers = config.peers as Required<typeof config.peers>;
  const logger = createLogger(PART.name, config.logLevel);
  // Before the app and its clients are built: they trace only if it is on (OTEL_EXPORTER_OTLP_ENDPOINT).
  const tracing = await startTracing(PART.name, config);
  const pool = createPool(config.databaseUrl!, PART.schema, config.databasePoolSize, config.database);
  // Postgres may come up after the gateway (Kubernetes starts everything at once): wait for it.
  const startUp = beginStartUp(logger, config);
  await startUp.step('Postgres connection', () => pool.query('SELECT 1'));
  await startUp.step('Postgres migrations', () => migrate(pool, PART.schema, PART.dir));
  const metrics = new Metrics();
  const clock = createDatabaseClock({
    pool, logger, metrics, part: PART.name, maxSkewMs: config.clockSkewMaxMs, intervalMs: config.clockSkewCheckMs,
  });
  await startUp.step('clock skew against Postgres', () => clock.measure());
  clock.start();
  const app = build({
    pool,
    metrics,
    clients: createGatewayClients({
      payments: peers.payments, routingRisk: peers['routing-risk'], webhooks: peers.webhooks, ledger: peers.ledger,
      payouts: peers.payouts,
    }, config.internalToken!, metrics, config.requestBudgetMs),
    clock,
    logger,
    config,
    operatorToken: config.operatorToken,
  });
  // Said once at start, by variable: what the dashboard's mail lacks here (dashboard/mailer.ts).
  for (const warning of mailWarnings(config)) logger.warn(warning);
  await app.listen({ port: config.port, host: config.host });
  startUp.done();
  const url = deploymentUrl(config.publicBaseUrl, app.server.address());
  logger.info({ url, docs: `${url}${DOCS_PATH}` }, `gateway at ${url}; API reference at ${url}${DOCS_PATH}`);
  const metricsServer = await serveMetricsIfConfigured(metrics, config, logger);
  onShutdown(logger, async () => {
    clock.stop();
    await metricsServer?.close();
    // Exits within SHUTDOWN_TIMEOUT_MS whatever clients do: a half-sent body is cut, not awaited.
    await closeGateway(app, config.shutdownTimeoutMs, logger);
    await pool.end();
    await tracing?.shutdown();
  }, config.shutdownTimeoutMs);
} catch (err) {
  exitOnStartupError(err);
}
