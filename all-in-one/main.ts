// `npm start`: the whole service in one process. With DATABASE_URL / NATS_URL it uses those;
// without them an embedded Postgres (data under DATA_DIR) and an in-process event bus.
import { DASHBOARD_PATH, DOCS_PATH, OPENAPI_PATH, bootstrapLocal, consoleMailer, localProject } from '../gateway/index.js';
import { JetStreamBus, MemoryBus, checkBroker, type EventBus } from '../services/platform/bus/index.js';
import { systemClock } from '../services/platform/clock.js';
import { loadConfig } from '../services/platform/config.js';
import { createPool } from '../services/platform/db.js';
import { createLogger } from '../services/platform/logger.js';
import { Metrics } from '../services/platform/metrics.js';
import {
  beginStartUp, serveMetricsIfConfigured, exitOnStartupError, onShutdown,
} from '../services/platform/standalone.js';
import { startTracing } from '../services/platform/tracing.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres.js';
import { writeBaseUrl } from '../services/platform/base-url-file.js';
import { loadOrCreateOperatorToken, operatorTokenPath } from '../services/platform/operator-token.js';
import { fillLocalKeys } from './local-keys.js';
import { startStack } from './stack.js';

// How the start-up text names the management CLI run from this folder.
const CLI = 'node bin/svc.js';

// A laptop run listens on loopback only and keeps its logs quiet unless told otherwise.
const env: Record<string, string | undefined> = { HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...process.env };
// Hosted-page links point at this gateway unless the deployment says where customers reach it.
env.PUBLIC_BASE_URL ??= `http://${env.HOST === '0.0.0.0' ? '127.0.0.1' : env.HOST}:${env.PORT ?? 8080}`;

try {
  const config = loadConfig(env);
  const logger = createLogger('svc', config.logLevel);
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
  if (!config.operatorToken) config.operatorToken = (await loadOrCreateOperatorToken(config.dataDir)).token;
  // DATABASE_URL's server may still be starting: wait for it as a lone part does.
  const probe = createPool(databaseUrl, 'public', 1);
  await startUp.step('Postgres connection', () => probe.query('SELECT 1')).finally(() => probe.end());
  // Keys the environment does not set are made once in DATA_DIR, with or without DATABASE_URL.
  const localKeys = await fillLocalKeys(config);

  // Without SMTP_HOST, dashboard mail (registration, reset and invitation links) is printed here for the person at the terminal.
  // One registry and one endpoint (METRICS_PORT) for all six parts of this process.
  const metrics = new Metrics();
  const stack = await startStack({ config, databaseUrl, bus, logger, mailer: config.smtp ? undefined : consoleMailer(), metrics });
  const metricsServer = await serveMetricsIfConfigured(metrics, config, logger);
  startUp.done();

  const gatewayPool = createPool(databaseUrl, 'gateway', 1);
  const first = await bootstrapLocal(gatewayPool, systemClock, config);
  const project = first ? undefined : await localProject(gatewayPool);
  await gatewayPool.end();
  // For `node bin/svc.js` run from this folder, whatever PORT this start listens on.
  await writeBaseUrl(config.dataDir, stack.baseUrl);

  const lines = [
    '',
    `svc is running at ${stack.baseUrl}`,
    `  dashboard: ${stack.baseUrl}${DASHBOARD_PATH}/${first ? ' (sign in with the link below to see the test key\'s payments)' : ''}`,
    `  API reference: ${stack.baseUrl}${DOCS_PATH} (OpenAPI document: ${stack.baseUrl}${OPENAPI_PATH})`,
    ...(metricsServer ? [`  Prometheus metrics: http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${metricsServer.port}/metrics`] : []),
    `  database: ${embedded ? 'embedded Postgres' : 'DATABASE_URL'}; events: ${config.natsUrl ? 'NATS JetStream' : 'in-process bus'}`,
    ...(localKeys.length > 0 ? [`  ${localKeys.join(', ')}: from ${config.dataDir} (made on first start; keep them with the database)`] : []),
  ];
  if (first) {
    lines.push(
      `  merchant ${first.merchant.id}, project ${first.project.id}`,
      `  test API key (shown once, keep it): ${first.secret}`,
      `  dashboard sign-in link for this merchant's owner (shown once; works once, until ${first.ownerLink.expires_at};`,
      '  open it, then choose the email and password you will sign in with):',
      `    ${first.ownerLink.url}`,
      '',
      'Make a payment:',
      `  curl -s ${stack.baseUrl}/v1/payments -H "Authorization: Bearer ${first.secret}" \\`,
      `    -H 'content-type: application/json' -d '{"amount":1000,"currency":"EUR","payment_method":"card"}'`,
    );
  } else if (project) {
    lines.push(
      `  merchant ${project.merchantId}, project ${project.id}`,
      `  create more keys with: ${CLI} key create --project ${project.id} --mode test --name NAME`,
      project.owners.length > 0
        ? `  sign in to the dashboard as its owner (${project.owners.join(', ')}), or get a one-time sign-in link: ${CLI} merchant sign-in-link ${project.merchantId}`
        : `  sign in to the dashboard with a one-time link for its owner: ${CLI} merchant sign-in-link ${project.merchantId}`,
    );
  }
  if (!process.env.OPERATOR_TOKEN) lines.push(`  operator token for \`${CLI}\`: ${operatorTokenPath(config.dataDir)}`);
  process.stdout.write(`${lines.join('\n')}\n\n`);

  onShutdown(logger, async () => {
    await metricsServer?.close();
    await stack.close();
    await bus.close();
    await embedded?.stop();
    await tracing?.shutdown();
  }, config.shutdownTimeoutMs);
} catch (err) {
  exitOnStartupError(err);
}
