import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Clock } from '../services/platform/clock.js';
import type { Config } from '../services/platform/config.js';
import type { Pool } from '../services/platform/db.js';
import { newId } from '../services/platform/ids.js';
import type { Logger } from '../services/platform/logger.js';
import { watchPool, type Metrics } from '../services/platform/metrics.js';
import { apiScope } from './api/scope.js';
import type { GatewayClients } from './clients.js';
import { dashboardAssets } from './dashboard/assets.js';
import { afterAnswer, configuredMailer, issueOwnerLink, dashboardApiScope, startDashboardSweep, startDisputeReminders, startEndpointNotices, type Mailer } from './dashboard/index.js';
import { createAdmitter } from './edge/admitter.js';
import { withCardNumbersWithheld } from './edge/card-data.js';
import { trustedProxyRanges } from './edge/ip-allowlist.js';
import { apiDocs } from './http/docs.js';
import { installErrorHandling } from './http/errors.js';
import { healthRoutes } from './http/health.js';
import { installJsonBody } from './http/json-body.js';
import { installHttpMetrics } from './http/metrics.js';
import { installHttpTracing, tracedRequestLogger } from './http/tracing.js';
import { serverOptions } from './http/server-options.js';
import { refuseWhileClosing, trackClosing } from './http/shutdown.js';
import { installTextRules } from './http/text-rules.js';
import { refuseOversizedHead } from './http/transport-errors.js';
import { installValidation } from './http/validation.js';
import { manageScope } from './management/scope.js';
import { providerWebhooks } from './routes/provider-webhooks.js';
import { sandboxPages } from './sandbox/index.js';
import { createKeyCache, createStore } from './store/index.js';

export type { GatewayClients } from './clients.js';

export interface GatewayDeps {
  pool: Pool;
  clients: GatewayClients;
  clock: Clock;
  logger: Logger;
  config: Config;
  /** Enables the management API; without it the /manage routes do not exist. */
  operatorToken?: string;
  /** How the dashboard mails; SMTP when configured, else a log line without the text (dashboard/mailer.ts). */
  mailer?: Mailer;
  /** The process's metrics registry; main.ts serves it on METRICS_PORT. Tests without one record nothing. */
  metrics?: Metrics;
}

/**
 * The HTTP gateway, ready to listen. The root holds what every request meets; /v1 and /manage/v1 are
 * encapsulated plugins whose hooks (authentication first) touch only their own routes.
 */
export function build(deps: GatewayDeps): FastifyInstance {
  const app: FastifyInstance = Fastify({
    ...serverOptions(deps.config),
    loggerInstance: withCardNumbersWithheld(deps.logger) as FastifyBaseLogger,
    genReqId: () => newId('req'),
    // A request's log lines name its id as the contract does (x-request-id, request_id in errors).
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    childLoggerFactory: tracedRequestLogger(),
  });
  // This process's own changes to keys and projects reach its key cache before they are answered.
  const keyCache = createKeyCache();
  const store = createStore(deps.pool, (change) => keyCache.drop(change));
  const admitter = createAdmitter({ pool: deps.pool, store, keyCache, clock: deps.clock, logger: deps.logger });
  // The cache stays off (admission reads Postgres) until the listener stands.
  void admitter.start();
  const isClosing = trackClosing(app);
  // First of the hooks, so the request's span encloses everything the others do (tracing on only).
  installHttpTracing(app);
  if (deps.metrics) {
    // Before any route exists: the route label's values are collected as routes are added.
    installHttpMetrics(app, deps.metrics);
    watchPool(deps.metrics, 'gateway', deps.pool);
  }

  // Fastify adds hooks in registration order and a plugin inherits the hooks its parent has when it
  // loads, so the root's hooks are installed before any scope is registered.
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    refuseWhileClosing(isClosing, reply);
    refuseOversizedHead(request.raw);
  });
  installErrorHandling(app);
  installValidation(app);
  // Bodies are parsed strictly (json-body.ts); path and query text is checked on every route
  // (text-rules.ts) before the scopes' own preValidation hooks and validation.
  installJsonBody(app);
  installTextRules(app);

  app.register(apiDocs(deps.config.publicBaseUrl)); // /openapi.json and /docs, no API key
  app.register(healthRoutes(deps.pool, deps.clients.health, deps.clock)); // /healthz and /readyz for probes, no API key
  app.register(dashboardAssets()); // the dashboard's pages under /dashboard (its API: /dashboard/api)
  app.register(sandboxPages(deps.clients.payments)); // the customer's browser: token, not API key (not /v1)
  app.register(providerWebhooks(deps.clients.providerNotifications, deps.clients.payouts)); // providers: their signature, not API key (not /v1)
  app.register(apiScope({ store, admitter, clients: deps.clients, clock: deps.clock, config: deps.config }), { prefix: '/v1' });
  // The dashboard's own API: a session cookie, never an API key (and never valid on /v1).
  const trustedProxies = trustedProxyRanges(deps.config.trustedProxies);
  const mailer = deps.mailer ?? configuredMailer(deps.config, deps.logger);
  const later = afterAnswer(deps.logger);
  app.register(dashboardApiScope({
    store, clients: deps.clients, clock: deps.clock, config: deps.config, mailer, later, trustedProxies,
    operatorToken: deps.operatorToken,
  }), { prefix: '/dashboard/api' });
  // Expired mailed links and spent throttle rows go periodically; mail still being sent is awaited at close.
  const sweep = startDashboardSweep(store, deps.clock, deps.logger, deps.config.dashboardSweepMs);
  // Owners are mailed when the webhooks part disables an endpoint for failing (dashboard/endpoint-notices.ts).
  const notices = startEndpointNotices({
    webhooks: deps.clients.webhooks, store, mailer, logger: deps.logger, everyMs: deps.config.webhookSweepMs,
    dashboardUrl: deps.config.publicBaseUrl ? `${deps.config.publicBaseUrl}/dashboard` : 'the dashboard',
  });
  // And of their disputes' evidence deadlines, as payments' reminder job decides (dashboard/dispute-reminders.ts).
  const reminders = startDisputeReminders({
    reminders: deps.clients.disputeReminders, store, mailer, logger: deps.logger, everyMs: deps.config.webhookSweepMs, config: deps.config,
  });
  app.addHook('onClose', async () => {
    await sweep.stop();
    await notices.stop();
    await reminders.stop();
    await later.drain();
    await admitter.stop();
    await mailer.close?.();
  });
  if (deps.operatorToken) {
    app.register(manageScope({
      store, clock: deps.clock, clients: deps.clients, operatorToken: deps.operatorToken, trustedProxies,
      issueOwnerLink: (merchantId, actor) => issueOwnerLink({ store, clock: deps.clock, config: deps.config }, merchantId, actor),
    }), {
      prefix: '/manage/v1',
    });
  }
  return app;
}
