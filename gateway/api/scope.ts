import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../services/platform/clock.js';
import type { Config } from '../../services/platform/config.js';
import type { GatewayClients } from '../clients.js';
import type { Handlers } from '../routes/handlers.js';
import { registerOperations } from './register.js';
import { installAdmission } from '../edge/admission.js';
import type { Admitter } from '../edge/admitter.js';
import { installCardDataCheck } from '../edge/card-data.js';
import { installIdempotency } from '../edge/idempotency.js';
import { trustedProxyRanges } from '../edge/ip-allowlist.js';
import { installRequestLog } from '../edge/request-log.js';
import { errorSentBy, routeNotFound } from '../http/errors.js';
import { installEventStream } from '../routes/event-stream.js';
import { eventHandlers } from '../routes/events.js';
import { ledgerHandlers } from '../routes/ledger.js';
import { meHandlers } from '../routes/me.js';
import { lifecycleHandlers } from '../routes/payment-lifecycle.js';
import { paymentMethodHandlers } from '../routes/payment-methods.js';
import { paymentHandlers } from '../routes/payments.js';
import { installPayoutDestinationCheck, payoutHandlers } from '../routes/payouts.js';
import { refundHandlers } from '../routes/refunds.js';
import { disputeHandlers } from '../routes/disputes.js';
import { sandboxHandlers } from '../routes/sandbox.js';
import { timelineHandlers } from '../routes/timeline.js';
import { webhookHandlers } from '../routes/webhooks.js';
import type { GatewayStore } from '../store/index.js';

// The /v1 API as one encapsulated plugin (Fastify's encapsulation: hooks registered here touch only
// the routes registered here, and this scope's own 404). The root's hooks run first for every
// request: x-request-id, 503 while closing, the URL length; then, only here and in this order:
//   onRequest      admission: authentication, the IP allow-list, the rate limit (edge/admission.ts)
//   preValidation  the root's text rules, then card data and bank accounts in a payout
//   validation     the operation's schemas
//   preHandler     idempotency (after validation, so a refused request leaves no record)
//   onResponse     the dashboard's request log, written in batches after the answer (edge/request-log.ts)

export interface ApiDeps {
  store: GatewayStore;
  admitter: Admitter;
  clients: GatewayClients;
  clock: Clock;
  config: Config;
}

/** The /v1 operations' handlers; the dashboard's API calls some of them for its session's scope (dashboard/api-mirror.ts). */
export function apiHandlers(clients: GatewayClients): Handlers {
  return {
    ...meHandlers(),
    ...paymentHandlers(clients.payments),
    ...lifecycleHandlers(clients.payments),
    ...refundHandlers(clients.refunds),
    ...disputeHandlers(clients.disputes),
    ...paymentMethodHandlers(clients.paymentMethods),
    ...sandboxHandlers(clients.payments),
    ...timelineHandlers(clients.payments, clients.webhooks),
    ...webhookHandlers(clients.webhooks),
    ...eventHandlers(clients.webhooks),
    ...ledgerHandlers(clients.ledger),
    ...payoutHandlers(clients.payouts),
  };
}

/** Register with `{ prefix: '/v1' }`: the operation table's paths begin with it. */
export function apiScope(deps: ApiDeps) {
  return async function api(scope: FastifyInstance): Promise<void> {
    installAdmission(scope, deps);
    installRequestLog(scope, { ...deps, errorSentBy });
    installIdempotency(scope, deps);
    installCardDataCheck(scope);
    installPayoutDestinationCheck(scope);
    // An unknown /v1 route is authenticated and counted like a known one: it costs the server work too.
    scope.setNotFoundHandler(routeNotFound);
    registerOperations(scope, apiHandlers(deps.clients));
    // A stream rather than an operation of the table (routes/event-stream.ts says why).
    installEventStream(scope, deps.clients.webhooks, {
      maxPerGateway: deps.config.eventStreamsPerGateway,
      maxLifetimeMs: deps.config.eventStreamMaxLifetimeSeconds * 1000,
      recheckMs: deps.config.eventStreamRecheckMs,
      grants: (keyIds) => deps.store.activeKeyAllowlists(keyIds),
      trustedProxies: trustedProxyRanges(deps.config.trustedProxies),
    });
  };
}
