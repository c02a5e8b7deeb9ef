import type { ConnectRouter } from '@connectrpc/connect';
import { ProviderNotificationsService } from '../../../proto/gen/svc/payments/v1/provider_notifications_pb.js';
import { answerOf } from '../provider-payouts/index.js';
import type { Receiver } from './receive.js';

// ProviderNotificationsService: the gateway's forwarded deliveries, answered with what the provider
// expects back. Headers arrive lower-cased; only the connector reads them.
export function providerNotificationRoutes(receiver: Receiver) {
  return (router: ConnectRouter) => {
    router.service(ProviderNotificationsService, {
      async receiveNotification(req) {
        const received = await receiver.receive({
          providerCode: req.providerCode,
          providerAccountId: req.providerAccountId,
          body: Buffer.from(req.body),
          headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), v])),
        });
        return {
          ...received,
          payouts: received.payouts.map((n) => ({ eventId: n.eventId, payoutId: n.payoutId ?? undefined, answer: answerOf(n.result) })),
        };
      },
    });
  };
}
