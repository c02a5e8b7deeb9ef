// payments: runs payment orchestration (PaymentsService) and refunds (RefundsService). Owns schema
// payments; emits payment.* and refund.* events.
import type { Client } from '@connectrpc/connect';
import { PaymentMethodsService } from '../../proto/gen/svc/payments/v1/payment_methods_pb.js';
import { PaymentsService } from '../../proto/gen/svc/payments/v1/payments_pb.js';
import { RefundsService } from '../../proto/gen/svc/payments/v1/refunds_pb.js';
import type { RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import {
  assemblePart, bindingSweep, createRelay, type PartInfo, type ServiceDeps, type ServicePart,
} from '../shared/index.js';
import { createConnectorRegistry, type Connector } from './connectors/index.js';
import { createAuthorizationExpiry, createCustomerActionExpiry, createReconciliation } from './jobs/index.js';
import { createCustomerActions } from './customer-actions/index.js';
import { createLifecycle, createOrchestrator, createStore, routes } from './payments/index.js';
import { createPaymentMethodStore, paymentMethodRoutes } from './payment-methods/index.js';
import { createRefunds, refundRoutes } from './refunds/index.js';

// What a licensed provider implements to plug in (docs/connectors.md).
export type {
  AuthorizeRequest, AuthorizeResult, Connector, PaymentStatusResult, RefundRequest, RefundResult,
} from './connectors/index.js';

export const PART: PartInfo = { name: 'payments', schema: 'payments', dir: 'services/payments' };

export interface PaymentsDeps extends ServiceDeps {
  routing: Client<typeof RoutingService>;
  /** Licensed provider connectors by provider code; demo providers are built in. */
  connectors?: Record<string, Connector>;
}

export function build(deps: PaymentsDeps): ServicePart {
  const relay = createRelay(deps);
  const store = createStore(deps.pool);
  const paymentMethods = createPaymentMethodStore(deps.pool);
  const customerActions = createCustomerActions({ store, clock: deps.clock, relay });
  const connectors = createConnectorRegistry(deps.connectors);
  const idempotencyTtlMs = deps.config.idempotencyTtlHours * 3_600_000;
  const orchestrator = createOrchestrator({
    store,
    routing: deps.routing,
    connectors,
    clock: deps.clock,
    relay,
    providerTimeoutMs: deps.config.providerTimeoutMs,
    paymentMethods,
    customerActions: { ttlMinutes: deps.config.customerActionTtlMinutes, publicBaseUrl: deps.config.publicBaseUrl },
    idempotencyTtlMs,
  });
  const lifecycle = createLifecycle({ store, clock: deps.clock, relay, idempotencyTtlMs });
  const refunds = createRefunds({
    store,
    pool: deps.pool,
    connectors,
    clock: deps.clock,
    relay,
    logger: deps.logger,
    providerTimeoutMs: deps.config.providerTimeoutMs,
    idempotencyTtlMs,
  });
  const expiry = createAuthorizationExpiry({
    store,
    clock: deps.clock,
    relay,
    logger: deps.logger,
    ttlHours: deps.config.authorizationTtlHours,
    intervalMs: deps.config.expirySweepMs,
  });
  const actionExpiry = createCustomerActionExpiry({
    store, clock: deps.clock, relay, logger: deps.logger, intervalMs: deps.config.expirySweepMs,
  });
  const reconciliation = createReconciliation({
    store, connectors, refunds, clock: deps.clock, relay, logger: deps.logger,
    intervalMs: deps.config.reconciliationSweepMs, providerTimeoutMs: deps.config.providerTimeoutMs,
  });
  const bindings = bindingSweep(deps.pool, deps.clock, deps.logger);
  return assemblePart(deps, {
    name: PART.name,
    services: [PaymentsService.typeName, RefundsService.typeName, PaymentMethodsService.typeName],
    routes: (router) => {
      routes(orchestrator, lifecycle, customerActions)(router);
      refundRoutes(refunds)(router);
      paymentMethodRoutes(paymentMethods, deps.clock)(router);
    },
    relay,
    async start() {
      expiry.start();
      actionExpiry.start();
      reconciliation.start();
      bindings.start();
    },
    // Before the relay's final drain, so the events of a last sweep are published too.
    stop: async () => {
      await Promise.all([expiry.stop(), actionExpiry.stop(), reconciliation.stop(), bindings.stop()]);
    },
  });
}
