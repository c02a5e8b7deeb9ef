import type { EventEnvelope } from '../../contract/envelope.js';
import { INTERNAL_EVENT_TYPES, isCount, isText, isTextOrNull, scoped, type InternalEvent } from './types.js';

/**
 * The provider moved a dispute's money: `withdrawal` (the disputed amount taken back from the
 * merchant's balance, with the provider's dispute fee) or `reinstatement` (the amount given back
 * when the dispute is won or the chargeback reversed). Written by payments in the transaction that
 * records the dispute change which moved the money, once per movement: `id` names the movement
 * (a dispute may be withdrawn, reinstated and withdrawn again by a second chargeback), and the
 * ledger books each id once, whatever the order or number of deliveries.
 */
export interface DisputeFundsMoved {
  version: 1;
  /** The movement's id (`dpm_…`): the ledger's once-only key. */
  id: string;
  dispute_id: string;
  payment_id: string;
  kind: 'withdrawal' | 'reinstatement';
  /** What moved, positive, in the dispute's currency. */
  amount: number;
  /** The provider's dispute fee charged with this withdrawal; 0 for a reinstatement (providers keep the fee). */
  fee_amount: number;
  currency: string;
  /** The dispute's normalised reason and stage when the money moved. */
  reason: string;
  stage: string;
  provider_id: string | null;
  provider_code: string | null;
  provider_name: string | null;
  provider_account_id: string | null;
  provider_dispute_id: string | null;
  moved_at: string;
}

export type DisputeFundsMovedEvent = InternalEvent<DisputeFundsMoved>;

/** The event as a dispute.funds_moved of a version this code reads, or undefined (malformed, unknown version). */
export function disputeFundsMovedOf(event: EventEnvelope): DisputeFundsMovedEvent | undefined {
  if (event?.type !== INTERNAL_EVENT_TYPES.disputeFundsMoved) return undefined;
  const o = event.data?.object as Partial<DisputeFundsMoved> | undefined;
  if (!o || o.version !== 1) return undefined;
  const ok = isText(o.id) && isText(o.dispute_id) && isText(o.payment_id)
    && (o.kind === 'withdrawal' || o.kind === 'reinstatement')
    && isCount(o.amount) && o.amount >= 0 && isCount(o.fee_amount) && o.fee_amount >= 0
    && isText(o.currency) && isText(o.reason) && isText(o.stage)
    && isTextOrNull(o.provider_name) && isTextOrNull(o.provider_account_id) && isTextOrNull(o.provider_dispute_id)
    && scoped(event);
  return ok ? (event as unknown as DisputeFundsMovedEvent) : undefined;
}
