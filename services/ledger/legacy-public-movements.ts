import { contractEvent, failedAfterAcceptance, minorFromJson, type ContractEvent, type Minor } from '../contract/index.js';
import type { EventEnvelope } from '../contract/index.js';
import { reversal, type Movement } from './movements.js';

/**
 * LEGACY (kept one version): the movement a public money event records, read from the
 * contract's JSON (payment, refund, payout as the API shows them: PaymentJson, RefundJson,
 * PayoutJson). Producers now write internal events the ledger records from
 * (internal-movements.ts); this reader keeps the public events already in the stream during a
 * rolling upgrade recorded. Remove it, with its test, once every producer writes internal events
 * and the ledger's consumer has no public money event pending (docs/decisions.md). The events
 * that move no money (payment.created, .processing, .authorized, .cancelled, .refunded,
 * payout.created) record nothing. A refund.failed of a refund the provider had accepted
 * (failedAfterAcceptance) reverses that refund; a payout.failed of a payout recorded as
 * successful becomes a reversal, which the store decides, since the payout's JSON looks the
 * same either way.
 */

// Lenient as this reader always was: an absent amount is 0, a fraction is cut.
const big = (v: unknown): Minor => minorFromJson(Math.trunc(Number(v ?? 0)));
const orNull = <T>(v: T | undefined | null): T | null => (v === undefined ? null : v);

type MoneyEvent = Extract<ContractEvent, {
  type: 'payment.successful' | 'payment.failed' | 'refund.successful' | 'refund.failed' | 'payout.successful' | 'payout.failed';
}>;

const MONEY_EVENTS: ReadonlySet<string> = new Set<MoneyEvent['type']>([
  'payment.successful', 'payment.failed', 'refund.successful', 'refund.failed', 'payout.successful', 'payout.failed',
]);

const isMoneyEvent = (e: ContractEvent | undefined): e is MoneyEvent => e !== undefined && MONEY_EVENTS.has(e.type);

// The optional chains below stay although the objects are typed: an event is JSON from the bus,
// and a malformed one records zeros and nulls rather than stopping the consumer (as before).
export function movementFromLegacyPublicEvent(envelope: EventEnvelope): Movement | undefined {
  const event = contractEvent(envelope);
  if (!isMoneyEvent(event)) return undefined;
  const ok = event.type.endsWith('.successful');
  const o = event.data.object;
  const base = {
    scope: { merchantId: event.merchant_id, projectId: event.project_id, mode: event.mode },
    status: ok ? ('successful' as const) : ('failed' as const),
    entityId: String(o.id),
    currency: String(o.currency),
    failureCode: ok ? null : orNull(o.failure?.code),
    // The moment the outcome was committed: the event's emission time (the producer's clock).
    occurredAt: new Date(event.created_at),
  };
  if (event.type === 'payment.successful' || event.type === 'payment.failed') {
    const p = event.data.object;
    return {
      ...base,
      type: 'payment',
      entityType: 'payment',
      paymentId: String(p.id),
      // What was captured (a manual capture may take less than authorized); a failed payment
      // keeps the amount that was attempted, for monitoring.
      amount: ok ? big(p.captured_amount) : big(p.amount),
      feeAmount: ok ? big(p.fee?.amount) : 0n,
      providerName: orNull(p.route?.provider?.name),
      providerAccountId: orNull(p.route?.provider_account_id),
      providerReference: orNull(p.route?.provider_payment_id),
      paymentMethod: orNull(p.payment_method?.type),
      country: orNull(p.country),
      processingTimeMs: orNull(p.processing_time_ms),
      inheritsFromPayment: false,
      reversesRefund: false,
    };
  }
  if (event.type === 'refund.successful' || event.type === 'refund.failed') {
    const r = event.data.object;
    const refund: Movement = {
      ...base,
      type: 'refund',
      entityType: 'refund',
      paymentId: String(r.payment_id),
      amount: -big(r.amount),
      // Providers charge nothing for a refund today; a fee a provider's report shows is recorded
      // as a fee transaction of its settlement.
      feeAmount: 0n,
      providerName: null,
      providerAccountId: null,
      providerReference: orNull(r.provider_refund_id),
      paymentMethod: null,
      country: null,
      processingTimeMs: null,
      inheritsFromPayment: true,
      reversesRefund: false,
    };
    // It waits for the refund's successful transaction, so an out-of-order delivery never records it alone.
    return event.type === 'refund.failed' && failedAfterAcceptance(r) ? { ...reversal(refund), reversesRefund: true } : refund;
  }
  const po = event.data.object;
  return {
    ...base,
    type: 'payout',
    entityType: 'payout',
    paymentId: null,
    amount: -big(po.amount),
    // A payout that failed was not charged for.
    feeAmount: ok ? big(po.fee?.amount) : 0n,
    providerName: orNull(po.route?.provider?.name),
    providerAccountId: orNull(po.route?.provider_account_id),
    providerReference: orNull(po.route?.provider_payout_id),
    paymentMethod: null,
    country: orNull(po.destination?.country),
    processingTimeMs: null,
    inheritsFromPayment: false,
    reversesRefund: false,
  };
}
