import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Client } from '@connectrpc/connect';
import type { PaymentsService } from '../../proto/gen/svc/payments/v1/payments_pb.js';
import { scopeOf } from '../auth/authenticate.js';
import type { Handlers } from '../api/register.js';

export function timelineHandlers(payments: Client<typeof PaymentsService>): Handlers {
  return {
    async getPaymentTimeline(request, _reply, identity) {
      const { id } = request.params as { id: string };
      const res = await payments.getPaymentTimeline({ scope: scopeOf(identity), id });
      return {
        payment_id: res.paymentId,
        data: res.events.map((e) => ({
          id: e.id,
          type: e.type,
          title: e.title,
          description: e.description ?? null,
          attempt_id: e.attemptId ?? null,
          data: e.data ?? {},
          created_at: e.createdAt ? timestampDate(e.createdAt).toISOString() : null,
        })),
      };
    },
  };
}
