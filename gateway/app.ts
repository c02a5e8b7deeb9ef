import type { Client } from '@connectrpc/connect';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { LedgerService } from '../proto/gen/svc/ledger/v1/ledger_pb.js';
import type { PaymentMethodsService } from '../proto/gen/svc/payments/v1/payment_methods_pb.js';
import type { PaymentsService } from '../proto/gen/svc/payments/v1/payments_pb.js';
import type { RefundsService } from '../proto/gen/svc/payments/v1/refunds_pb.js';
import type { PayoutsService } from '../proto/gen/svc/payouts/v1/payouts_pb.js';
import type { RoutingService } from '../proto/gen/svc/routing/v1/routing_pb.js';
import type { WebhooksService } from '../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import { newId, type Clock, type Config, type Logger, type Pool } from '../services/shared/index.js';
import { authenticate } from './auth/authenticate.js';
import { installCardDataCheck, withCardNumbersWithheld } from './edge/card-data.js';
import { installIdempotency } from './edge/idempotency.js';
import { installIpAllowlist } from './edge/ip-allowlist.js';
import { installRateLimit } from './edge/rate-limit.js';
import { installErrorHandling } from './http/errors.js';
import { installJsonBody } from './http/json-body.js';
import { serverOptions } from './http/server-options.js';
import { refuseWhileClosing, trackClosing } from './http/shutdown.js';
import { installTextRules } from './http/text-rules.js';
import { refuseLongUrl } from './http/transport-errors.js';
import type { OutboxClients } from './management/dead-letter-routes.js';
import { managementRoutes } from './management/routes.js';
import { buildOpenApi, registerOperations } from './contract/index.js';
import { ledgerHandlers } from './routes/ledger.js';
import { meHandlers } from './routes/me.js';
import { lifecycleHandlers } from './routes/payment-lifecycle.js';
import { paymentMethodHandlers } from './routes/payment-methods.js';
import { paymentHandlers } from './routes/payments.js';
import { installPayoutDestinationCheck, payoutHandlers } from './routes/payouts.js';
import { refundHandlers } from './routes/refunds.js';
import { sandboxHandlers } from './routes/sandbox.js';
import { sandboxPages } from './sandbox/index.js';
import { timelineHandlers } from './routes/timeline.js';
import { webhookHandlers } from './routes/webhooks.js';
import { createStore } from './store/index.js';

export interface GatewayClients {
  payments: Client<typeof PaymentsService>;
  refunds: Client<typeof RefundsService>;
  paymentMethods: Client<typeof PaymentMethodsService>;
  /** routing-risk, for the management API's routing rules; optional so /v1 runs without it. */
  routing?: Client<typeof RoutingService>;
  /** webhooks; a standalone gateway requires WEBHOOKS_URL, in-process tests may leave it out. */
  webhooks?: Client<typeof WebhooksService>;
  /** ledger and payouts; a standalone gateway requires LEDGER_URL and PAYOUTS_URL, in-process tests may leave them out. */
  ledger?: Client<typeof LedgerService>;
  payouts?: Client<typeof PayoutsService>;
  /** OutboxService of each part with an outbox (payments, ledger, payouts), for /manage/v1/dead-letters. */
  outbox?: OutboxClients;
}

export interface GatewayDeps {
  pool: Pool;
  clients: GatewayClients;
  clock: Clock;
  logger: Logger;
  config: Config;
  /** Enables the management API; without it the /manage routes do not exist. */
  operatorToken?: string;
}

export function isApiRequest(url: string): boolean {
  return url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?');
}

/** The HTTP gateway, ready to listen. */
export function build(deps: GatewayDeps): FastifyInstance {
  const app: FastifyInstance = Fastify({
    ...serverOptions(deps.config),
    loggerInstance: withCardNumbersWithheld(deps.logger) as FastifyBaseLogger,
    genReqId: () => newId('req'),
  });
  const store = createStore(deps.pool);
  const isClosing = trackClosing(app);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    refuseWhileClosing(isClosing, reply);
    refuseLongUrl(request.url);
    if (isApiRequest(request.url)) request.identity = await authenticate(store, request);
  });
  // The edge rules run in this order, each only on authenticated /v1 requests: the IP allow-list
  // and the rate limit as onRequest hooks right after authentication, idempotency as a preHandler
  // (after validation, so a request refused as invalid leaves no idempotency record).
  installIpAllowlist(app, deps.config);
  installRateLimit(app, { store, clock: deps.clock, config: deps.config });
  installIdempotency(app, { store, clock: deps.clock, config: deps.config });
  installErrorHandling(app);
  // Bodies are parsed strictly (json-body.ts); then, before validation, every route's path and query
  // text (text-rules.ts), card data in any /v1 request, and bank accounts in a payout are refused.
  installJsonBody(app);
  installTextRules(app);
  installCardDataCheck(app);
  installPayoutDestinationCheck(app);

  const openApi = JSON.stringify(buildOpenApi());
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json').send(openApi));
  app.register(sandboxPages(deps.clients.payments)); // the customer's browser: token, not API key (not /v1)
  registerOperations(app, {
    ...meHandlers(),
    ...paymentHandlers(deps.clients.payments),
    ...lifecycleHandlers(deps.clients.payments),
    ...refundHandlers(deps.clients.refunds),
    ...paymentMethodHandlers(deps.clients.paymentMethods),
    ...sandboxHandlers(deps.clients.payments),
    ...timelineHandlers(deps.clients.payments),
    ...webhookHandlers(deps.clients.webhooks),
    ...ledgerHandlers(deps.clients.ledger),
    ...payoutHandlers(deps.clients.payouts),
  });
  if (deps.operatorToken) managementRoutes(app, store, deps.clock, deps.operatorToken, deps.clients.routing,
    deps.clients.webhooks, deps.clients.outbox);
  return app;
}
