import {
  ConfigError, createLogger, createPool, exitOnStartupError, loadConfig, migrate, onShutdown,
  peerVariable, retryAtStart, systemClock,
} from '../services/shared/index.js';
import { PART, build, createGatewayClients } from './index.js';
import { closeGateway, exitAfter } from './http/shutdown.js';

try {
  const config = loadConfig();
  if (!config.databaseUrl) throw new ConfigError('DATABASE_URL', 'is required to run gateway on its own');
  if (!config.peers.payments) throw new ConfigError(peerVariable('payments'), 'is required: gateway calls payments');
  if (!config.peers['routing-risk']) {
    throw new ConfigError(peerVariable('routing-risk'), 'is required: gateway calls routing-risk for routing rules');
  }
  if (!config.peers.webhooks) throw new ConfigError(peerVariable('webhooks'), 'is required: gateway calls webhooks');
  if (!config.peers.ledger) throw new ConfigError(peerVariable('ledger'), 'is required: gateway calls ledger');
  if (!config.peers.payouts) throw new ConfigError(peerVariable('payouts'), 'is required: gateway calls payouts');
  const logger = createLogger(PART.name, config.logLevel);
  const pool = createPool(config.databaseUrl, PART.schema, config.databasePoolSize);
  // Postgres may come up after the gateway (Kubernetes starts everything at once): wait for it.
  await retryAtStart('Postgres', () => pool.query('SELECT 1'), { logger });
  await retryAtStart('Postgres', () => migrate(pool, PART.schema, PART.dir), { logger });
  const app = build({
    pool,
    clients: createGatewayClients({
      payments: config.peers.payments, routingRisk: config.peers['routing-risk'], webhooks: config.peers.webhooks,
      ledger: config.peers.ledger, payouts: config.peers.payouts,
    }),
    clock: systemClock,
    logger,
    config,
    operatorToken: config.operatorToken,
  });
  await app.listen({ port: config.port, host: config.host });
  onShutdown(logger, async () => {
    // Exits within SHUTDOWN_TIMEOUT_MS whatever clients do: a half-sent body is cut, not awaited.
    exitAfter(config.shutdownTimeoutMs, logger);
    await closeGateway(app, config.shutdownTimeoutMs, logger);
    await pool.end();
  });
} catch (err) {
  exitOnStartupError(err);
}
