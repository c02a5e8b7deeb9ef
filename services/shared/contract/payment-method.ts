import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { PaymentMethod } from '../../../proto/gen/svc/payments/v1/payment_methods_pb.js';

// The contract's JSON shape of a stored payment method, in the contract's field order. The
// provider token is not part of it (nor of the proto message): it never leaves payments by this path.
export function paymentMethodJson(pm: PaymentMethod): Record<string, unknown> {
  return {
    id: pm.id,
    object: 'payment_method',
    type: pm.type,
    customer_id: pm.customerId ?? null,
    display: { ...pm.display },
    status: pm.status,
    created_at: pm.createdAt ? timestampDate(pm.createdAt).toISOString() : null,
  };
}
