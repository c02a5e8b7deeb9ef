import type { Client } from '@connectrpc/connect';
import type { PaymentsService } from '../../proto/gen/svc/payments/v1/payments_pb.js';
import {
  minorFromJson, paymentJson, type CancelRequestJson, type CaptureRequestJson,
} from '../../services/contract/index.js';
import { scopeOf } from '../auth/authenticate.js';
import type { Handlers } from './handlers.js';
import { idempotencyKeyFor } from '../edge/idempotency.js';

// Capture and cancel of an existing payment. Bodies arrive schema-validated (an absent body is {});
// whether the payment's state allows the operation is the payments service's call (409).

export function lifecycleHandlers(payments: Client<typeof PaymentsService>): Handlers {
  return {
    async capturePayment(request, _reply, identity) {
      const { id } = request.params as { id: string };
      const body = request.body as CaptureRequestJson;
      const { payment } = await payments.capturePayment({
        scope: scopeOf(identity),
        id,
        amount: body.amount === undefined ? undefined : minorFromJson(body.amount),
        idempotencyKey: idempotencyKeyFor(request),
      });
      return paymentJson(payment!);
    },

    async cancelPayment(request, _reply, identity) {
      const { id } = request.params as { id: string };
      const body = request.body as CancelRequestJson;
      const { payment } = await payments.cancelPayment({
        scope: scopeOf(identity), id, reason: body.reason, idempotencyKey: idempotencyKeyFor(request),
      });
      return paymentJson(payment!);
    },
  };
}
