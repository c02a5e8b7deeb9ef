import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { Client } from '@connectrpc/connect';
import type { PaymentsService } from '../../proto/gen/svc/payments/v1/payments_pb.js';
import type { WebhooksService } from '../../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import { scopeOf } from '../auth/authenticate.js';
import type { Handlers } from './handlers.js';

// A payment's timeline is told by the parts that own its facts: the payments part narrates risk,
// routing, provider attempts, failover, captures and refunds; the webhooks part narrates the
// delivery attempts of the payment's events. Here the two are merged by time.

interface Entry {
  id: string;
  type: string;
  title: string;
  description: string | null;
  attempt_id: string | null;
  data: unknown;
  created_at: string | null;
}

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);

/**
 * Both lists in time order, merged by created_at: the payments part's keeps its own order (its
 * write order), and at equal times its entry comes first (an event is emitted before it is delivered).
 */
export function mergeByTime(payment: Entry[], webhooks: Entry[]): Entry[] {
  const merged: Entry[] = [];
  let w = 0;
  for (const entry of payment) {
    while (w < webhooks.length && (webhooks[w].created_at ?? '') < (entry.created_at ?? '')) merged.push(webhooks[w++]);
    merged.push(entry);
  }
  return merged.concat(webhooks.slice(w));
}

export function timelineHandlers(payments: Client<typeof PaymentsService>, webhooks: Client<typeof WebhooksService>): Handlers {
  return {
    async getPaymentTimeline(request, _reply, identity) {
      const { id } = request.params as { id: string };
      const scope = scopeOf(identity);
      // Asked at once, but the payment's answer is awaited first: an unknown payment is 404 whatever
      // the webhooks part answers (its failure is rethrown below, once the payment is known).
      const told = webhooks.listPaymentTimeline({ scope, paymentId: id });
      told.catch(() => undefined);
      const res = await payments.getPaymentTimeline({ scope, id });
      const deliveries = await told;
      const own = res.events.map((e) => ({
        id: e.id, type: e.type, title: e.title, description: e.description ?? null, attempt_id: e.attemptId ?? null,
        data: e.data ?? {}, created_at: iso(e.createdAt),
      }));
      const theirs = deliveries.entries.map((e) => ({
        id: e.id, type: e.type, title: e.title, description: e.description, attempt_id: null,
        data: e.data ?? {}, created_at: iso(e.createdAt),
      }));
      return { payment_id: res.paymentId, data: mergeByTime(own, theirs) };
    },
  };
}
