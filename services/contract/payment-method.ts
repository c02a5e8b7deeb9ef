import type { PaymentMethod } from '../../proto/gen/svc/payments/v1/payment_methods_pb.js';
import { PAYMENT_METHOD_TYPES } from './enums.js';
import { asOneOf, iso, orNull } from './json-values.js';
import type { PaymentMethodJson } from './resources.js';

// The contract's JSON shape of a stored payment method, in the contract's field order. The
// provider token is not part of it (nor of the proto message): it never leaves payments by this path.
export function paymentMethodJson(pm: PaymentMethod): PaymentMethodJson {
  return {
    id: pm.id,
    object: 'payment_method',
    type: asOneOf(PAYMENT_METHOD_TYPES, pm.type),
    customer_id: orNull(pm.customerId),
    display: { ...pm.display },
    status: pm.status,
    created_at: iso(pm.createdAt),
  };
}
