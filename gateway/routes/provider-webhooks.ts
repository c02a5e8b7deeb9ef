import type { Client } from '@connectrpc/connect';
import type { FastifyInstance } from 'fastify';
import type { ProviderNotificationsService } from '../../proto/gen/svc/payments/v1/provider_notifications_pb.js';
import type { PayoutsService } from '../../proto/gen/svc/payouts/v1/payouts_pb.js';
import { MAX_PROVIDER_NOTIFICATION_BYTES } from '../../services/contract/index.js';

/**
 * POST /providers/{provider}/webhooks/{provider_account_id}: where Stripe and Adyen send their
 * notifications about an account's payments and refunds. Providers hold no API key, so the route
 * sits outside /v1 and takes none: payments has the account's connector verify the provider's
 * signature over the exact bytes received, so this scope keeps the body as bytes (its own parser
 * for every media type; the root's JSON parser would re-encode it) and forwards it with the headers.
 * Neither body nor headers are logged. The answer is what the provider expects back: Adyen's
 * "[accepted]", else a small JSON acknowledgement; 400 invalid_signature and 404 as the registry says.
 * A payout notification is the payouts part's to decide: it is handed on before the answer, so one
 * that could not be handed on fails the delivery and the provider sends it again.
 */

const PATH = '/providers/:provider/webhooks/:account';

// Transport headers the connector has no use for; everything else (signatures, Authorization for
// Adyen's basic auth) goes to the connector, which alone reads it.
const DROPPED = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'cookie']);

function forwardedHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || DROPPED.has(name)) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export function providerWebhooks(notifications: Client<typeof ProviderNotificationsService>, payouts: Client<typeof PayoutsService>) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    // Encapsulated: the bytes-as-received parser applies to this route only.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_PROVIDER_NOTIFICATION_BYTES }, (_request, body, done) => {
      done(null, body);
    });

    app.post<{ Params: { provider: string; account: string } }>(PATH, async (request, reply) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const res = await notifications.receiveNotification({
        providerCode: request.params.provider,
        providerAccountId: request.params.account,
        body,
        headers: forwardedHeaders(request.headers),
      });
      for (const n of res.payouts) {
        await payouts.noteProviderPayout({
          providerCode: request.params.provider, providerAccountId: request.params.account,
          eventId: n.eventId, payoutId: n.payoutId, answer: n.answer,
        });
      }
      reply.header('cache-control', 'no-store');
      if (res.acknowledgement) return reply.code(200).type('text/plain; charset=utf-8').send(res.acknowledgement);
      return reply.code(200).send({ received: true, notifications: res.received, new_notifications: res.newNotifications });
    });
  };
}
