import type { Client } from '@connectrpc/connect';
import type { RefundsService } from '../../proto/gen/svc/payments/v1/refunds_pb.js';
import { minorFromJson, refundJson, type RefundRequestJson } from '../../services/contract/index.js';
import { scopeOf } from '../auth/authenticate.js';
import type { Handlers } from './handlers.js';
import { idempotencyKeyFor } from '../edge/idempotency.js';
import { refuseScenarioInLive } from '../../services/platform/request-guards.js';

export function refundHandlers(refunds: Client<typeof RefundsService>): Handlers {
  return {
    async refundPayment(request, reply, identity) {
      const { id } = request.params as { id: string };
      // The body is optional; registerOperations hands an absent one over as {}.
      const body = (request.body ?? {}) as RefundRequestJson;
      refuseScenarioInLive(identity.mode, body.test_scenario);
      const { refund } = await refunds.createRefund({
        scope: scopeOf(identity),
        paymentId: id,
        amount: body.amount === undefined ? undefined : minorFromJson(body.amount),
        reason: body.reason,
        metadata: body.metadata ?? {},
        testScenario: body.test_scenario,
        idempotencyKey: idempotencyKeyFor(request),
      });
      return reply.code(201).send(refundJson(refund!));
    },

    async listPaymentRefunds(request, _reply, identity) {
      const { id } = request.params as { id: string };
      const res = await refunds.listRefunds({ scope: scopeOf(identity), paymentId: id });
      return { data: res.refunds.map(refundJson) };
    },

    async getRefund(request, _reply, identity) {
      const { id } = request.params as { id: string };
      const { refund } = await refunds.getRefund({ scope: scopeOf(identity), id });
      return refundJson(refund!);
    },
  };
}
