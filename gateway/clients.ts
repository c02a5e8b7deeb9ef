import { createClient } from '@connectrpc/connect';
import { LedgerService } from '../proto/gen/svc/ledger/v1/ledger_pb.js';
import { OutboxService } from '../proto/gen/svc/outbox/v1/outbox_pb.js';
import { PaymentMethodsService } from '../proto/gen/svc/payments/v1/payment_methods_pb.js';
import { PaymentsService } from '../proto/gen/svc/payments/v1/payments_pb.js';
import { RefundsService } from '../proto/gen/svc/payments/v1/refunds_pb.js';
import { PayoutsService } from '../proto/gen/svc/payouts/v1/payouts_pb.js';
import { RoutingService } from '../proto/gen/svc/routing/v1/routing_pb.js';
import { WebhooksService } from '../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import { createPeerTransport } from '../services/shared/index.js';
import type { GatewayClients } from './app.js';

/**
 * The gateway's clients of the service parts, over one HTTP/2 transport per part. routing-risk is
 * reached only by the management API's routing rules, so a gateway without its URL still serves /v1.
 */
export function createGatewayClients(urls: {
  payments: string; routingRisk?: string; webhooks?: string; ledger?: string; payouts?: string;
}): GatewayClients {
  const payments = createPeerTransport(urls.payments);
  const ledger = urls.ledger ? createPeerTransport(urls.ledger) : undefined;
  const payouts = urls.payouts ? createPeerTransport(urls.payouts) : undefined;
  return {
    payments: createClient(PaymentsService, payments),
    refunds: createClient(RefundsService, payments),
    paymentMethods: createClient(PaymentMethodsService, payments),
    routing: urls.routingRisk ? createClient(RoutingService, createPeerTransport(urls.routingRisk)) : undefined,
    webhooks: urls.webhooks ? createClient(WebhooksService, createPeerTransport(urls.webhooks)) : undefined,
    ledger: ledger ? createClient(LedgerService, ledger) : undefined,
    payouts: payouts ? createClient(PayoutsService, payouts) : undefined,
    // The parts with an outbox serve OutboxService beside their own services.
    outbox: {
      payments: createClient(OutboxService, payments),
      ledger: ledger ? createClient(OutboxService, ledger) : undefined,
      payouts: payouts ? createClient(OutboxService, payouts) : undefined,
    },
  };
}
