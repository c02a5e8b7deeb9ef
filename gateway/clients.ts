import { createClient, type Client, type Transport } from '@connectrpc/connect';
import { LedgerService } from '../proto/gen/svc/ledger/v1/ledger_pb.js';
import { OutboxService } from '../proto/gen/svc/outbox/v1/outbox_pb.js';
import { PaymentMethodsService } from '../proto/gen/svc/payments/v1/payment_methods_pb.js';
import { PaymentsService } from '../proto/gen/svc/payments/v1/payments_pb.js';
import { RefundsService } from '../proto/gen/svc/payments/v1/refunds_pb.js';
import { PayoutsService } from '../proto/gen/svc/payouts/v1/payouts_pb.js';
import { RoutingService } from '../proto/gen/svc/routing/v1/routing_pb.js';
import { WebhooksService } from '../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import { createPeerTransport } from '../services/shared/index.js';

/** The parts whose outbox the management API's dead letters reach (OutboxService). */
export const OUTBOX_PARTS = ['payments', 'payouts', 'ledger'] as const;
export type OutboxPart = (typeof OUTBOX_PARTS)[number];
export type OutboxClients = Record<OutboxPart, Client<typeof OutboxService>>;

/** Every part the gateway calls; each is required, so no route has to ask whether it may answer. */
export interface GatewayClients {
  payments: Client<typeof PaymentsService>;
  refunds: Client<typeof RefundsService>;
  paymentMethods: Client<typeof PaymentMethodsService>;
  /** routing-risk, for the management API's routing rules. */
  routing: Client<typeof RoutingService>;
  webhooks: Client<typeof WebhooksService>;
  ledger: Client<typeof LedgerService>;
  payouts: Client<typeof PayoutsService>;
  /** OutboxService of each part with an outbox, for /manage/v1/dead-letters. */
  outbox: OutboxClients;
}

/** One transport per part; tests hand in-memory ones (connect's createRouterTransport). */
export interface GatewayTransports {
  payments: Transport;
  routingRisk: Transport;
  webhooks: Transport;
  ledger: Transport;
  payouts: Transport;
}

export function clientsOver(t: GatewayTransports): GatewayClients {
  return {
    payments: createClient(PaymentsService, t.payments),
    refunds: createClient(RefundsService, t.payments),
    paymentMethods: createClient(PaymentMethodsService, t.payments),
    routing: createClient(RoutingService, t.routingRisk),
    webhooks: createClient(WebhooksService, t.webhooks),
    ledger: createClient(LedgerService, t.ledger),
    payouts: createClient(PayoutsService, t.payouts),
    // The parts with an outbox serve OutboxService beside their own services.
    outbox: {
      payments: createClient(OutboxService, t.payments),
      ledger: createClient(OutboxService, t.ledger),
      payouts: createClient(OutboxService, t.payouts),
    },
  };
}

/** The gateway's clients of the service parts, over one HTTP/2 transport per part. */
export function createGatewayClients(urls: Record<keyof GatewayTransports, string>): GatewayClients {
  return clientsOver({
    payments: createPeerTransport(urls.payments),
    routingRisk: createPeerTransport(urls.routingRisk),
    webhooks: createPeerTransport(urls.webhooks),
    ledger: createPeerTransport(urls.ledger),
    payouts: createPeerTransport(urls.payouts),
  });
}
