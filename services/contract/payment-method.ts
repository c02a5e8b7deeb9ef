import type { PaymentMethod, PaymentMethodCredential } from '../../proto/gen/svc/payments/v1/payment_methods_pb.js';
import { CREDENTIAL_TYPES, PAYMENT_METHOD_TYPES } from './enums.js';
import { asOneOf, iso, orNull } from './json-values.js';
import type { PaymentMethodCredentialJson, PaymentMethodJson } from './resources.js';

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

// A credential of a stored method, in the contract's field order; the token is not part of it.
export function paymentMethodCredentialJson(c: PaymentMethodCredential): PaymentMethodCredentialJson {
  return {
    id: c.id,
    object: 'payment_method_credential',
    payment_method_id: c.paymentMethodId,
    type: asOneOf(CREDENTIAL_TYPES, c.type),
    provider_code: orNull(c.providerCode),
    provider_account_id: orNull(c.providerAccountId),
    vault: orNull(c.vault),
    created_at: iso(c.createdAt),
  };
}
