import { INTERNAL_PREFIX } from './internal-events/types.js';

/**
 * Internal domain events: facts the parts tell each other, never shown to merchants. They travel
 * in the same envelope, outbox and stream as the public events (so they commit with the change
 * they describe and keep its payment's order), under types that start with `internal.`, hence on
 * subjects `<prefix>.internal.<name>`. Public consumers (webhooks) pass them over; internal ones
 * subscribe to `<prefix>.internal.>`. Each object carries `version`: a consumer reads the versions
 * it knows and drops (loudly) the rest, so a producer can add fields without a lock-step deploy and
 * change meaning only under a new version. One file per event under internal-events/: its payload,
 * what it means, when it is written, which of its fields are amounts (Minor in code, JSON numbers
 * on the wire), its producer's builder and its reader.
 */
export {
  INTERNAL_EVENT_TYPES, INTERNAL_PREFIX, internalEnvelope, type InternalEvent, type InternalObject, type Wire,
} from './internal-events/types.js';
export {
  attemptSettledObject, attemptSettledOf, type AttemptSettled, type AttemptSettledEvent,
} from './internal-events/attempt-settled.js';
export {
  paymentDecidedObject, paymentDecidedOf, type PaymentDecided, type PaymentDecidedEvent,
} from './internal-events/payment-decided.js';
export {
  refundSettledObject, refundSettledOf, type RefundSettled, type RefundSettledEvent,
} from './internal-events/refund-settled.js';
export {
  payoutSettledObject, payoutSettledOf, type PayoutSettled, type PayoutSettledEvent,
} from './internal-events/payout-settled.js';
export {
  disputeFundsMovedObject, disputeFundsMovedOf, type DisputeFundsMoved, type DisputeFundsMovedEvent,
} from './internal-events/dispute-funds-moved.js';
export {
  lateChargeMovedObject, lateChargeMovedOf, type LateChargeMoved, type LateChargeMovedEvent,
} from './internal-events/late-charge-moved.js';

export function isInternalType(type: string): boolean {
  return type.startsWith(INTERNAL_PREFIX);
}

/** The filter an internal consumer subscribes with: every internal subject and nothing public. */
export function internalSubjects(prefix: string): string {
  return `${prefix}.${INTERNAL_PREFIX}>`;
}
