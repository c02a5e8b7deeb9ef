// Adyen as a destination of vault forwarding: the raw-card /payments request with the
// vault's placeholders where Adyen's card fields go (paymentMethod type scheme, number,
// expiryMonth, expiryYear, cvc, holderName), and how its status query, sent directly to Adyen
// without the card, tells an attempt Adyen never received.
import type { Types } from '@adyen/api-library';
import { isAdyenHttpError } from './client.js';
import type { CardPlaceholders } from '../vault-forwarding.js';
import type { AuthorizeRequest } from '../types.js';

type PaymentRequest = Types.checkout.PaymentRequest;

/**
 * Adyen's raw card fields, each holding what the vault replaces. A merchant-initiated charge
 * (ContAuth) carries no CVC: the customer is not there to give one, and a vault keeps it only for
 * its first forward.
 */
export function forwardedCard(
  placeholders: CardPlaceholders, req: Pick<AuthorizeRequest, 'merchantInitiated'> = {},
): Pick<PaymentRequest, 'paymentMethod'> {
  return {
    paymentMethod: {
      type: 'scheme',
      number: placeholders.number,
      expiryMonth: placeholders.expiryMonth,
      expiryYear: placeholders.expiryYear,
      ...(!req.merchantInitiated && { cvc: placeholders.cvc }),
      holderName: placeholders.holderName,
    } as PaymentRequest['paymentMethod'],
  };
}

/**
 * Adyen's validation errors of raw card fields (https://docs.adyen.com/development-resources/error-codes):
 * 101 invalid card number, 102 unable to determine variant, 103 CVC invalid length, 129 expiry
 * date invalid, 136 expiry invalid. A status query repeats /payments under the attempt's key with
 * the placeholders still empty: had Adyen received the forwarded request, it would answer that
 * request's response from its idempotency store; refusing the card fields instead means it never
 * did, and nobody was charged.
 */
const CARD_FIELD_ERRORS = new Set(['101', '102', '103', '129', '136']);

export function neverReceivedForwarded(err: unknown): boolean {
  return isAdyenHttpError(err) && err.statusCode === 422 && CARD_FIELD_ERRORS.has(err.errorCode ?? '');
}
