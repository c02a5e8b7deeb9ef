import type { EventEnvelope } from '../shared/index.js';
import type { TransactionRecord } from './store.js';

/**
 * What a money event means to the ledger: the movement it records, or nothing. Pure, so the
 * mapping from the contract's JSON (payment, refund, payout as the API shows them) is tested
 * beside this file. The events that move no money (payment.created, .processing, .authorized,
 * .cancelled, .refunded, payout.created) record nothing: refunds are recorded from refund.*
 * events, and a payout from its outcome.
 */

export interface Scope {
  merchantId: string;
  projectId: string;
  mode: string;
}

/** The transaction an event records, before it has an id or a settlement. */
export interface Movement extends Omit<TransactionRecord, 'id' | 'settlementId' | 'type' | 'status' | 'entityType'> {
  type: 'payment' | 'refund' | 'payout';
  status: 'successful' | 'failed';
  entityType: 'payment' | 'refund' | 'payout';
  /** A refund names its payment only: provider, account and method come from the payment's transaction. */
  inheritsFromPayment: boolean;
}

type Json = Record<string, any>;

const big = (v: unknown): bigint => BigInt(Math.trunc(Number(v ?? 0)));
const orNull = <T>(v: T | undefined | null): T | null => (v === undefined ? null : v);

const MONEY_EVENTS = new Set([
  'payment.successful', 'payment.failed', 'refund.successful', 'refund.failed', 'payout.successful', 'payout.failed',
]);

export function movementFromEvent(event: EventEnvelope): Movement | undefined {
  if (!MONEY_EVENTS.has(event.type)) return undefined;
  const o = event.data.object as Json;
  const ok = event.type.endsWith('.successful');
  const base = {
    scope: { merchantId: event.merchant_id, projectId: event.project_id, mode: event.mode },
    status: ok ? ('successful' as const) : ('failed' as const),
    entityId: String(o.id),
    currency: String(o.currency),
    failureCode: ok ? null : orNull(o.failure?.code as string | undefined),
    // The moment the outcome was committed: the event's emission time (the producer's clock).
    occurredAt: new Date(event.created_at),
  };
  if (event.type.startsWith('payment.')) {
    return {
      ...base,
      type: 'payment',
      entityType: 'payment',
      paymentId: String(o.id),
      // What was captured (a manual capture may take less than authorized); a failed payment
      // keeps the amount that was attempted, for monitoring.
      amount: ok ? big(o.captured_amount) : big(o.amount),
      feeAmount: ok ? big(o.fee?.amount) : 0n,
      providerName: orNull(o.route?.provider?.name as string | undefined),
      providerAccountId: orNull(o.route?.provider_account_id as string | null | undefined),
      providerReference: orNull(o.route?.provider_payment_id as string | null | undefined),
      paymentMethod: orNull(o.payment_method?.type as string | undefined),
      country: orNull(o.country as string | null | undefined),
      processingTimeMs: orNull(o.processing_time_ms as number | null | undefined),
      inheritsFromPayment: false,
    };
  }
  if (event.type.startsWith('refund.')) {
    return {
      ...base,
      type: 'refund',
      entityType: 'refund',
      paymentId: String(o.payment_id),
      amount: -big(o.amount),
      // Providers charge nothing for a refund today; a fee a provider's report shows is recorded
      // as a fee transaction of its settlement.
      feeAmount: 0n,
      providerName: null,
      providerAccountId: null,
      providerReference: orNull(o.provider_refund_id as string | null | undefined),
      paymentMethod: null,
      country: null,
      processingTimeMs: null,
      inheritsFromPayment: true,
    };
  }
  return {
    ...base,
    type: 'payout',
    entityType: 'payout',
    paymentId: null,
    amount: -big(o.amount),
    // A payout that failed was not charged for.
    feeAmount: ok ? big(o.fee?.amount) : 0n,
    providerName: orNull(o.route?.provider?.name as string | undefined),
    providerAccountId: orNull(o.route?.provider_account_id as string | null | undefined),
    providerReference: orNull(o.route?.provider_payout_id as string | null | undefined),
    paymentMethod: null,
    country: orNull(o.destination?.country as string | null | undefined),
    processingTimeMs: null,
    inheritsFromPayment: false,
  };
}
