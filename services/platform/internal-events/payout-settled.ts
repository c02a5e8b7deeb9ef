import type { EventEnvelope } from '../../contract/envelope.js';
import type { Minor } from '../../contract/money.js';
import {
  INTERNAL_EVENT_TYPES, internalObject, isText, isTextOrNull, readInternal, scoped, type InternalEvent, type InternalEventKind,
  type InternalObject,
} from './types.js';

/**
 * A payout's outcome: `successful` (sent), or `failed` (refused, never sent, or returned by the
 * bank after it was sent). Written in the transaction that emits the public payout.successful or
 * payout.failed, so exactly as often. Whether a failure undoes a recorded success is the
 * consumer's to decide from what it recorded, since the two may arrive in either order.
 */
export interface PayoutSettled {
  version: 1;
  /** The payout's id. */
  id: string;
  status: 'successful' | 'failed';
  amount: Minor;
  currency: string;
  /** What the provider charged for it; a payout that failed was charged nothing. */
  fee_amount: Minor;
  provider_id: string | null;
  provider_code: string | null;
  provider_name: string | null;
  provider_account_id: string | null;
  provider_payout_id: string | null;
  destination_country: string | null;
  failure_code: string | null;
  failure_category: string | null;
  settled_at: string;
}

export type PayoutSettledEvent = InternalEvent<PayoutSettled>;

const PAYOUT_SETTLED: InternalEventKind<PayoutSettled> = {
  type: INTERNAL_EVENT_TYPES.payoutSettled, version: 1, amounts: { amount: 'required', fee_amount: 'required' },
};

/** The producer's payout.settled as the outbox writes it. */
export const payoutSettledObject = (object: PayoutSettled): InternalObject => internalObject(PAYOUT_SETTLED, object);

/** The event as a payout.settled of a version this code reads, or undefined (malformed, unknown version). */
export function payoutSettledOf(event: EventEnvelope): PayoutSettledEvent | undefined {
  return readInternal(PAYOUT_SETTLED, event, (o) => isText(o.id) && (o.status === 'successful' || o.status === 'failed')
    && isText(o.currency) && isTextOrNull(o.provider_name) && isTextOrNull(o.provider_account_id)
    && isTextOrNull(o.provider_payout_id) && isTextOrNull(o.destination_country) && isTextOrNull(o.failure_code)
    && scoped(event));
}
