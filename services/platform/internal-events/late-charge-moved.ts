import type { EventEnvelope } from '../../contract/envelope.js';
import type { Minor } from '../../contract/money.js';
import {
  INTERNAL_EVENT_TYPES, internalObject, isText, isTextOrNull, readInternal, scoped, type InternalEvent, type InternalEventKind,
  type InternalObject,
} from './types.js';

/**
 * A late charge's money moved (docs/decisions/2026-12-07-a-late-success.md, "A late success"): `charged`, a provider took the
 * payment for an attempt recorded failed, after the payment had moved on; `returned`, that charge
 * was refunded at the same provider. Written by payments (late-charges/) in the transaction that
 * records the late success, and in the one that records its return's outcome. Only a captured charge
 * moves money: a late authorization that is released moved nothing and is not written. The ledger
 * books each kind once per attempt (`id`), whatever the order or number of deliveries.
 */
export interface LateChargeMoved {
  version: 1;
  /** The attempt the provider charged late: with `kind`, the ledger's once-only key. */
  id: string;
  payment_id: string;
  kind: 'charged' | 'returned';
  /** What moved, positive, in the payment's currency. */
  amount: Minor;
  /** The provider's fee on the charge when it reported one; 0 when unknown, and for a return. */
  fee_amount: Minor;
  currency: string;
  provider_code: string;
  provider_account_id: string;
  /** The provider's id of the late charge. */
  provider_payment_id: string | null;
  moved_at: string;
}

export type LateChargeMovedEvent = InternalEvent<LateChargeMoved>;

const LATE_CHARGE_MOVED: InternalEventKind<LateChargeMoved> = {
  type: INTERNAL_EVENT_TYPES.lateChargeMoved, version: 1, amounts: { amount: 'required', fee_amount: 'required' },
};

/** The producer's late_charge.moved as the outbox writes it. */
export const lateChargeMovedObject = (object: LateChargeMoved): InternalObject => internalObject(LATE_CHARGE_MOVED, object);

/** The event as a late_charge.moved of a version this code reads, or undefined (malformed, unknown version). */
export function lateChargeMovedOf(event: EventEnvelope): LateChargeMovedEvent | undefined {
  return readInternal(LATE_CHARGE_MOVED, event, (o) => isText(o.id) && isText(o.payment_id)
    && (o.kind === 'charged' || o.kind === 'returned') && o.amount >= 0 && o.fee_amount >= 0
    && isText(o.currency) && isText(o.provider_code) && isText(o.provider_account_id) && isTextOrNull(o.provider_payment_id)
    && scoped(event));
}
