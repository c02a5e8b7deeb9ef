import { createClient, type Client, type Transport } from '@connectrpc/connect';
import { Health } from '../proto/gen/grpc/health/v1/health_pb.js';
import { LedgerService } from '../proto/gen/svc/ledger/v1/ledger_pb.js';
import { OutboxService } from '../proto/gen/svc/outbox/v1/outbox_pb.js';
import { DemoBehaviourService } from '../proto/gen/svc/payments/v1/demo_behaviour_pb.js';
import { PaymentMethodsService } from '../proto/gen/svc/payments/v1/payment_methods_pb.js';
import { PaymentsService } from '../proto/gen/svc/payments/v1/payments_pb.js';
import { ProviderCredentialsService } from '../proto/gen/svc/payments/v1/provider_credentials_pb.js';
import { ProviderNotificationsService } from '../proto/gen/svc/payments/v1/provider_notifications_pb.js';
import { ProviderSettlementsService } from '../proto/gen/svc/payments/v1/provider_settlements_pb.js';
import { RefundsService } from '../proto/gen/svc/payments/v1/refunds_pb.js';
import { DisputeRemindersService } from '../proto/gen/svc/payments/v1/dispute_reminders_pb.js';
import { DisputesService } from '../proto/gen/svc/payments/v1/disputes_pb.js';
import { PayoutsService } from '../proto/gen/svc/payouts/v1/payouts_pb.js';
import { ProviderAccountsService } from '../proto/gen/svc/routing/v1/provider_accounts_pb.js';
import { RoutingService } from '../proto/gen/svc/routing/v1/routing_pb.js';
import { WebhooksService } from '../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import type { ServiceName } from '../services/platform/config.js';
import type { Metrics } from '../services/platform/metrics.js';
import { createPeerTransport } from '../services/platform/rpc.js';

/** The parts whose outbox the management API's dead letters reach (OutboxService). */
export const OUTBOX_PARTS = ['payments', 'payouts', 'ledger'] as const;
export type OutboxPart = (typeof OUTBOX_PARTS)[number];
export type OutboxClients = Record<OutboxPart, Client<typeof OutboxService>>;

/** Every part the gateway calls; each is required, so no route has to ask whether it may answer. */
export interface GatewayClients {
  payments: Client<typeof PaymentsService>;
  refunds: Client<typeof RefundsService>;
  disputes: Client<typeof DisputesService>;
  /** payments' evidence-deadline reminders, which the gateway mails to owners (dashboard/dispute-reminders.ts). */
  disputeReminders: Client<typeof DisputeRemindersService>;
  paymentMethods: Client<typeof PaymentMethodsService>;
  /** routing-risk, for the management API's routing rules. */
  routing: Client<typeof RoutingService>;
  /** routing-risk's provider accounts and payments' credentials for them (management API). */
  providerAccounts: Client<typeof ProviderAccountsService>;
  providerCredentials: Client<typeof ProviderCredentialsService>;
  /** payments' intake of the providers' own webhooks (POST /providers/{provider}/webhooks/{account}). */
  providerNotifications: Client<typeof ProviderNotificationsService>;
  /** payments' reading of providers' settlements (settlement reports and sync, management API). */
  providerSettlements: Client<typeof ProviderSettlementsService>;
  /** payments' sandbox demo behaviour per project (management API, dashboard). */
  demoBehaviour: Client<typeof DemoBehaviourService>;
  webhooks: Client<typeof WebhooksService>;
  ledger: Client<typeof LedgerService>;
  payouts: Client<typeof PayoutsService>;
  /** OutboxService of each part with an outbox, for /manage/v1/dead-letters. */
  outbox: OutboxClients;
  /** grpc.health.v1 of every part, for /readyz. */
  health: Record<ServiceName, Client<typeof Health>>;
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
    disputes: createClient(DisputesService, t.payments),
    disputeReminders: createClient(DisputeRemindersService, t.payments),
    paymentMethods: createClient(PaymentMethodsService, t.payments),
    routing: createClient(RoutingService, t.routingRisk),
    providerAccounts: createClient(ProviderAccountsService, t.routingRisk),
    providerCredentials: createClient(ProviderCredentialsService, t.payments),
    providerNotifications: createClient(ProviderNotificationsService, t.payments),
    providerSettlements: createClient(ProviderSettlementsService, t.payments),
    demoBehaviour: createClient(DemoBehaviourService, t.payments),
    webhooks: createClient(WebhooksService, t.webhooks),
    ledger: createClient(LedgerService, t.ledger),
    payouts: createClient(PayoutsService, t.payouts),
    // The parts with an outbox serve OutboxService beside their own services.
    outbox: {
      payments: createClient(OutboxService, t.payments),
      ledger: createClient(OutboxService, t.ledger),
      payouts: createClient(OutboxService, t.payouts),
    },
    health: {
      payments: createClient(Health, t.payments),
      'routing-risk': createClient(Health, t.routingRisk),
      webhooks: createClient(Health, t.webhooks),
      ledger: createClient(Health, t.ledger),
      payouts: createClient(Health, t.payouts),
    },
  };
}

/**
 * The gateway's clients of the service parts, over one HTTP/2 transport per part, presenting
 * INTERNAL_TOKEN; their calls are counted in `metrics` when given. Each unary call is bounded by
 * the request's budget (REQUEST_BUDGET_MS): a part that does not answer is a 503, never a hang.
 */
export function createGatewayClients(
  urls: Record<keyof GatewayTransports, string>, internalToken: string, metrics?: Metrics, budgetMs?: number,
): GatewayClients {
  const peer = (url: string) => createPeerTransport(url, internalToken, metrics, budgetMs);
  return clientsOver({
    payments: peer(urls.payments),
    routingRisk: peer(urls.routingRisk),
    webhooks: peer(urls.webhooks),
    ledger: peer(urls.ledger),
    payouts: peer(urls.payouts),
  });
}
