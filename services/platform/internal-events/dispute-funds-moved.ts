import type { EventEnvelope } from '../../contract/envelope.js';
import type { Minor } from '../../contract/money.js';
import {
  INTERNAL_EVENT_TYPES, internalObject, isText, isTextOrNull, readInternal, scoped, type InternalEvent, type InternalEventKind,
  type InternalObject,
} from './types.js';

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
  amount: Minor;
  /** The provider's dispute fee charged with this withdrawal; 0 for a reinstatement (providers keep the fee). */
  fee_amount: Minor;
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

const DISPUTE_FUNDS_MOVED: InternalEventKind<DisputeFundsMoved> = {
  type: INTERNAL_EVENT_TYPES.disputeFundsMoved, version: 1, amounts: { amount: 'required', fee_amount: 'required' },
};

/** The producer's dispute.funds_moved as the outbox writes it. */
export const disputeFundsMovedObject = (object: DisputeFundsMoved): InternalObject => internalObject(DISPUTE_FUNDS_MOVED, object);

/** The event as a dispute.funds_moved of a version this code reads, or undefined (malformed, unknown version). */
export function disputeFundsMovedOf(event: EventEnvelope): DisputeFundsMovedEvent | undefined {
  return readInternal(DISPUTE_FUNDS_MOVED, event, (o) => isText(o.id) && isText(o.dispute_id) && isText(o.payment_id)
    && (o.kind === 'withdrawal' || o.kind === 'reinstatement') && o.amount >= 0 && o.fee_amount >= 0
    && isText(o.currency) && isText(o.reason) && isText(o.stage)
    && isTextOrNull(o.provider_name) && isTextOrNull(o.provider_account_id) && isTextOrNull(o.provider_dispute_id)
    && scoped(event));
}
