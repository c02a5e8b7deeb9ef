import type { EventEnvelope } from '../../contract/envelope.js';
import type { Minor } from '../../contract/money.js';
import {
  INTERNAL_EVENT_TYPES, internalObject, isCountOrNull, isText, isTextOrNull, readInternal, scoped, type InternalEvent,
  type InternalEventKind, type InternalObject,
} from './types.js';

/**
 * A payment reached its money outcome: `successful` (captured; what the merchant is owed before
 * fees) or `failed`. Written in the change that emits the public payment.successful or
 * payment.failed, so exactly as often. What the ledger records a payment's movement from.
 */
export interface PaymentDecided {
  version: 1;
  /** The payment's id. */
  id: string;
  status: 'successful' | 'failed';
  amount: Minor;
  /** What was captured: a manual capture may take less than was authorized; 0 when failed. */
  captured_amount: Minor;
  currency: string;
  /** The provider's fee for the payment, in its currency; 0 when none was charged. */
  fee_amount: Minor;
  payment_method: string;
  country: string | null;
  /** The route that decided it; all null when no provider was tried (a risk block). */
  provider_id: string | null;
  provider_code: string | null;
  provider_name: string | null;
  provider_account_id: string | null;
  provider_payment_id: string | null;
  processing_time_ms: number | null;
  failure_code: string | null;
  failure_category: string | null;
  decided_at: string;
}

export type PaymentDecidedEvent = InternalEvent<PaymentDecided>;

const PAYMENT_DECIDED: InternalEventKind<PaymentDecided> = {
  type: INTERNAL_EVENT_TYPES.paymentDecided, version: 1,
  amounts: { amount: 'required', captured_amount: 'required', fee_amount: 'required' },
};

/** The producer's payment.decided as the outbox writes it. */
export const paymentDecidedObject = (object: PaymentDecided): InternalObject => internalObject(PAYMENT_DECIDED, object);

/** The event as a payment.decided of a version this code reads, or undefined (malformed, unknown version). */
export function paymentDecidedOf(event: EventEnvelope): PaymentDecidedEvent | undefined {
  return readInternal(PAYMENT_DECIDED, event, (o) => isText(o.id) && (o.status === 'successful' || o.status === 'failed')
    && isText(o.currency) && isText(o.payment_method)
    && isTextOrNull(o.country) && isTextOrNull(o.provider_name) && isTextOrNull(o.provider_account_id)
    && isTextOrNull(o.provider_payment_id) && isCountOrNull(o.processing_time_ms) && isTextOrNull(o.failure_code)
    && scoped(event));
}
