// Merchant-initiated payments: the customer is absent, so the charge must be
// tied to an earlier payment they made in person through the scheme's network transaction id,
// which the provider that took that payment returned and the stored method keeps. The id is read
// here when a payment asks for it (and kept on the payment, so every attempt and every later status
// query sends it), and kept on the method here when a customer-present payment brings one.
import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import type { CreatePaymentRequest } from '../../../proto/gen/svc/payments/v1/payments_pb.js';
import { invalidField } from '../../contract/index.js';
import type { RowWrite } from '../../platform/row-writes.js';
import type { AuthorizeRequest, AuthorizeResult } from '../../connectors/index.js';
import type { PaymentMethodRecord, PaymentMethodStore } from '../payment-methods/index.js';
import type { PaymentRecord } from './model.js';

/**
 * What a merchant-initiated payment sends every provider it tries; undefined for a customer-present
 * one. Refused (422, before anything is written) unless the payment names a stored method holding
 * a network transaction id: without it the issuer would see an unexplained card-not-present charge.
 */
export function merchantInitiatedOf(
  req: Pick<CreatePaymentRequest, 'merchantInitiated'>, stored: PaymentMethodRecord | undefined,
): AuthorizeRequest['merchantInitiated'] {
  if (!req.merchantInitiated) return undefined;
  if (!stored) {
    throw invalidField('merchant_initiated', 'merchant_initiated needs a stored payment method: send payment_method.id');
  }
  if (!stored.networkTransactionId) {
    throw invalidField('merchant_initiated', 'merchant_initiated needs a payment method that a successful customer-present '
      + `payment was made with; ${stored.id} has no network transaction id yet`);
  }
  return { networkTransactionId: stored.networkTransactionId };
}

/**
 * The statement that keeps a successful customer-present payment's network transaction id on its
 * stored method, written with the attempt's outcome. A merchant-initiated payment's own id is not
 * kept: later charges stay tied to the payment the customer made in person.
 */
export function keptNetworkTransactionId(
  methods: Pick<PaymentMethodStore, 'networkTransactionIdRow'>, scope: Scope,
  payment: Pick<PaymentRecord, 'paymentMethodId' | 'mitNetworkTransactionId'>, result: AuthorizeResult,
): RowWrite[] {
  if (payment.mitNetworkTransactionId || !payment.paymentMethodId || result.outcome !== 'success' || !result.networkTransactionId) return [];
  return [methods.networkTransactionIdRow(scope, payment.paymentMethodId, result.networkTransactionId)];
}
