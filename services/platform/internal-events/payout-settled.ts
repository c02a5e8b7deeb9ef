import type { EventEnvelope } from '../../contract/envelope.js';
import { INTERNAL_EVENT_TYPES, isCount, isText, isTextOrNull, scoped, type InternalEvent } from './types.js';

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
  amount: number;
  currency: string;
  /** What the provider charged for it; a payout that failed was charged nothing. */
  fee_amount: number;
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

/** The event as a payout.settled of a version this code reads, or undefined (malformed, unknown version). */
export function payoutSettledOf(event: EventEnvelope): PayoutSettledEvent | undefined {
  if (event?.type !== INTERNAL_EVENT_TYPES.payoutSettled) return undefined;
  const o = event.data?.object as Partial<PayoutSettled> | undefined;
  if (!o || o.version !== 1) return undefined;
  const ok = isText(o.id) && (o.status === 'successful' || o.status === 'failed') && isCount(o.amount)
    && isText(o.currency) && isCount(o.fee_amount) && isTextOrNull(o.provider_name) && isTextOrNull(o.provider_account_id)
    && isTextOrNull(o.provider_payout_id) && isTextOrNull(o.destination_country) && isTextOrNull(o.failure_code)
    && scoped(event);
  return ok ? (event as unknown as PayoutSettledEvent) : undefined;
}
