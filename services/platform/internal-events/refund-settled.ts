import type { EventEnvelope } from '../../contract/envelope.js';
import type { Minor } from '../../contract/money.js';
import {
  INTERNAL_EVENT_TYPES, internalObject, isText, isTextOrNull, readInternal, scoped, type InternalEvent, type InternalEventKind,
  type InternalObject,
} from './types.js';

/**
 * A refund's outcome at its provider: `successful`, `failed` when refused, or `failed` with
 * `after_acceptance` when the provider accepted it and it failed afterwards (its money came back).
 * Written in the change that emits the public refund.successful or refund.failed, so exactly as
 * often. A refund names its payment only: its provider, account and method are the payment's.
 */
export interface RefundSettled {
  version: 1;
  /** The refund's id. */
  id: string;
  payment_id: string;
  status: 'successful' | 'failed';
  after_acceptance: boolean;
  amount: Minor;
  currency: string;
  provider_refund_id: string | null;
  failure_code: string | null;
  failure_category: string | null;
  settled_at: string;
}

export type RefundSettledEvent = InternalEvent<RefundSettled>;

const REFUND_SETTLED: InternalEventKind<RefundSettled> = {
  type: INTERNAL_EVENT_TYPES.refundSettled, version: 1, amounts: { amount: 'required' },
};

/** The producer's refund.settled as the outbox writes it. */
export const refundSettledObject = (object: RefundSettled): InternalObject => internalObject(REFUND_SETTLED, object);

/** The event as a refund.settled of a version this code reads, or undefined (malformed, unknown version). */
export function refundSettledOf(event: EventEnvelope): RefundSettledEvent | undefined {
  return readInternal(REFUND_SETTLED, event, (o) => isText(o.id) && isText(o.payment_id)
    && (o.status === 'successful' || o.status === 'failed')
    && typeof o.after_acceptance === 'boolean' && (o.status === 'failed' || !o.after_acceptance)
    && isText(o.currency) && isTextOrNull(o.provider_refund_id) && isTextOrNull(o.failure_code)
    && scoped(event));
}
