import { createClient } from '@connectrpc/connect';
import { PaymentMethodsService } from '../proto/gen/svc/payments/v1/payment_methods_pb.js';
import { PaymentsService } from '../proto/gen/svc/payments/v1/payments_pb.js';
import { RefundsService } from '../proto/gen/svc/payments/v1/refunds_pb.js';
import { RoutingService } from '../proto/gen/svc/routing/v1/routing_pb.js';
import { createPeerTransport } from '../services/shared/index.js';
import type { GatewayClients } from './app.js';

/**
 * The gateway's clients of the service parts, over one HTTP/2 transport per part. routing-risk is
 * reached only by the management API's routing rules, so a gateway without its URL still serves /v1.
 */
export function createGatewayClients(urls: { payments: string; routingRisk?: string }): GatewayClients {
  const payments = createPeerTransport(urls.payments);
  return {
    payments: createClient(PaymentsService, payments),
    refunds: createClient(RefundsService, payments),
    paymentMethods: createClient(PaymentMethodsService, payments),
    routing: urls.routingRisk ? createClient(RoutingService, createPeerTransport(urls.routingRisk)) : undefined,
  };
}
