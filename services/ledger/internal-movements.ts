import type { EventEnvelope } from '../contract/index.js';
import {
  INTERNAL_EVENT_TYPES, disputeFundsMovedOf, lateChargeMovedOf, payoutSettledOf, paymentDecidedOf, refundSettledOf,
  type InternalEvent,
} from '../platform/internal-events.js';
import { reversal, type Movement } from './movements.js';

/**
 * The movement an internal money event records (services/platform/internal-events/): a decided
 * payment, a settled refund, a settled payout, a dispute's funds moved, a late charge moved. The
 * first three map field for field to what the legacy public reader takes from the same change's
 * public event, so either records the same row; a dispute's and a late charge's money have no
 * public twin.
 */

/** An internal money event this code cannot read (a newer version, a malformed one). */
export class UnreadableMoneyEvent extends Error {}

const MONEY_TYPES: ReadonlySet<string> = new Set([
  INTERNAL_EVENT_TYPES.paymentDecided, INTERNAL_EVENT_TYPES.refundSettled, INTERNAL_EVENT_TYPES.payoutSettled,
  INTERNAL_EVENT_TYPES.disputeFundsMoved, INTERNAL_EVENT_TYPES.lateChargeMoved,
]);

/**
 * Undefined for internal events that move no money (attempt.settled, any type the ledger does not
 * consume); throws UnreadableMoneyEvent for a money event it cannot read, which is redelivered
 * rather than dropped: a movement is never lost because its producer was upgraded first.
 */
export function movementFromInternalEvent(event: EventEnvelope): Movement | undefined {
  if (!MONEY_TYPES.has(event.type)) return undefined;
  const movement = paymentMovement(event) ?? refundMovement(event) ?? payoutMovement(event) ?? disputeMovement(event)
    ?? lateChargeMovement(event);
  if (!movement) throw new UnreadableMoneyEvent(`${event.type} ${event.id}: a version or shape the ledger does not read`);
  return movement;
}

const base = (event: InternalEvent<{ id: string; status: string; currency: string; failure_code: string | null }>) => {
  const ok = event.data.object.status === 'successful';
  return {
    scope: { merchantId: event.merchant_id, projectId: event.project_id, mode: event.mode },
    status: ok ? ('successful' as const) : ('failed' as const),
    entityId: event.data.object.id,
    currency: event.data.object.currency,
    failureCode: ok ? null : event.data.object.failure_code,
    // The moment the outcome was committed: the event's emission time (the producer's clock).
    occurredAt: new Date(event.created_at),
  };
};

function paymentMovement(event: EventEnvelope): Movement | undefined {
  const decided = paymentDecidedOf(event);
  if (!decided) return undefined;
  const p = decided.data.object;
  const ok = p.status === 'successful';
  return {
    ...base(decided),
    type: 'payment',
    entityType: 'payment',
    paymentId: p.id,
    // What was captured; a failed payment keeps the amount that was attempted, for monitoring.
    amount: ok ? p.captured_amount : p.amount,
    feeAmount: ok ? p.fee_amount : 0n,
    providerName: p.provider_name,
    providerAccountId: p.provider_account_id,
    providerReference: p.provider_payment_id,
    paymentMethod: p.payment_method,
    country: p.country,
    processingTimeMs: p.processing_time_ms,
    inheritsFromPayment: false,
    reversesRefund: false,
  };
}

function refundMovement(event: EventEnvelope): Movement | undefined {
  const settled = refundSettledOf(event);
  if (!settled) return undefined;
  const r = settled.data.object;
  const refund: Movement = {
    ...base(settled),
    type: 'refund',
    entityType: 'refund',
    paymentId: r.payment_id,
    amount: -r.amount,
    // Providers charge nothing for a refund; a fee in a provider's report is its settlement's.
    feeAmount: 0n,
    providerName: null,
    providerAccountId: null,
    providerReference: r.provider_refund_id,
    paymentMethod: null,
    country: null,
    processingTimeMs: null,
    inheritsFromPayment: true,
    reversesRefund: false,
  };
  // It waits for the refund's successful transaction, so an out-of-order delivery never records it alone.
  return r.after_acceptance ? { ...reversal(refund), reversesRefund: true } : refund;
}

function payoutMovement(event: EventEnvelope): Movement | undefined {
  const settled = payoutSettledOf(event);
  if (!settled) return undefined;
  const po = settled.data.object;
  return {
    ...base(settled),
    type: 'payout',
    entityType: 'payout',
    paymentId: null,
    amount: -po.amount,
    // A payout that failed was not charged for.
    feeAmount: po.status === 'successful' ? po.fee_amount : 0n,
    providerName: po.provider_name,
    providerAccountId: po.provider_account_id,
    providerReference: po.provider_payout_id,
    paymentMethod: null,
    country: po.destination_country,
    processingTimeMs: null,
    inheritsFromPayment: false,
    reversesRefund: false,
  };
}

/**
 * A withdrawal is a `dispute` of minus the disputed amount with the provider's dispute fee; a
 * reinstatement a `dispute_reversal` of plus the amount (the fee stays charged). Named by the
 * dispute, told apart by the movement's id; provider, account, method and country come from the
 * payment's transaction, which it waits for, as a refund does.
 */
function disputeMovement(event: EventEnvelope): Movement | undefined {
  const moved = disputeFundsMovedOf(event);
  if (!moved) return undefined;
  const d = moved.data.object;
  const withdrawal = d.kind === 'withdrawal';
  return {
    scope: { merchantId: moved.merchant_id, projectId: moved.project_id, mode: moved.mode },
    type: withdrawal ? 'dispute' : 'dispute_reversal',
    status: 'successful',
    entityType: 'dispute',
    entityId: d.dispute_id,
    movementId: d.id,
    paymentId: d.payment_id,
    amount: withdrawal ? -d.amount : d.amount,
    feeAmount: withdrawal ? d.fee_amount : 0n,
    currency: d.currency,
    providerName: d.provider_name,
    providerAccountId: d.provider_account_id,
    providerReference: d.provider_dispute_id,
    paymentMethod: null,
    country: null,
    processingTimeMs: null,
    failureCode: null,
    occurredAt: new Date(moved.created_at),
    inheritsFromPayment: true,
    reversesRefund: false,
  };
}

/**
 * A late charge (docs/ledger.md, "A late charge"): `charged` is a `payment` of the amount, with
 * the provider's fee when it reported one, on the account that took it; `returned` a `refund` of
 * minus the amount there. Both are named by the payment, beside its own transaction, and told apart
 * from it by their movement ids, one per attempt and kind. Neither waits for the other or for the
 * payment's transaction: the event carries its own provider account.
 */
function lateChargeMovement(event: EventEnvelope): Movement | undefined {
  const moved = lateChargeMovedOf(event);
  if (!moved) return undefined;
  const c = moved.data.object;
  const charged = c.kind === 'charged';
  return {
    scope: { merchantId: moved.merchant_id, projectId: moved.project_id, mode: moved.mode },
    type: charged ? 'payment' : 'refund',
    status: 'successful',
    entityType: 'payment',
    entityId: c.payment_id,
    movementId: lateMovementId(c.id, c.kind),
    paymentId: c.payment_id,
    amount: charged ? c.amount : -c.amount,
    feeAmount: charged ? c.fee_amount : 0n,
    currency: c.currency,
    providerName: c.provider_code,
    providerAccountId: c.provider_account_id,
    providerReference: c.provider_payment_id,
    paymentMethod: null,
    country: null,
    processingTimeMs: null,
    failureCode: null,
    occurredAt: new Date(moved.created_at),
    inheritsFromPayment: false,
    reversesRefund: false,
  };
}

/** The transactions' movement id of a late charge's kind: one of each per attempt. */
const lateMovementId = (attemptId: string, kind: 'charged' | 'returned') =>
  `${attemptId}:${kind === 'charged' ? 'late_charge' : 'late_return'}`;
