import type { Client } from '@connectrpc/connect';
import type { WebhooksService } from '../../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import { scopeOf } from '../auth/authenticate.js';
import type { Handlers } from './handlers.js';

export function webhookHandlers(webhooks: Client<typeof WebhooksService>): Handlers {
  return {
    // A real event of the type, signed and delivered to this key's endpoints like any other.
    async sendTestWebhook(request, _reply, identity) {
      // The body is optional; registerOperations hands an absent one over as {}.
      const body = (request.body ?? {}) as { event_type?: string };
      const res = await webhooks.sendTestEvent({
        scope: scopeOf(identity),
        eventType: body.event_type ?? 'payment.successful',
      });
      return { event_id: res.eventId, deliveries: res.deliveries };
    },
  };
}
