import { newId } from '../../platform/ids.js';
import {
  attemptSettledObject, internalEnvelope, paymentDecidedObject, type AttemptSettled, type PaymentDecided,
} from '../../platform/internal-events.js';
import { type EventEnvelope } from '../../contract/index.js';
import type { AttemptRecord, PaymentRecord } from './model.js';
import type { Change } from './transitions.js';

/**
 * The internal events a change carries beside its public ones (services/platform/internal-events.ts):
 * its attempts' attempt.settled, the payment's payment.decided, then the change's own (a refund's).
 * An attempt settles where recordAnswer narrates a definite answer (`attempt.succeeded`,
 * `.authorized`, `.failed` in the change's timeline): that entry is written once per attempt, so
 * the event is too. Pure: commit.ts writes the envelopes in the change's own statements.
 */
const SETTLED = new Set(['succeeded', 'authorized', 'failed']);

export function internalEvents(change: Change): EventEnvelope[] {
  const { payment, at } = change;
  return [
    ...attemptsSettled(change),
    ...change.events.filter((e) => e === 'payment.successful' || e === 'payment.failed')
      .map((e) => internalEnvelope(newId('evt', at), payment, at, paymentDecidedObject(paymentDecided(payment, e, at)))),
    ...(change.internal ?? []).map((e) => internalEnvelope(newId('evt', at), payment, at, e)),
  ];
}

function attemptsSettled({ payment, attempts, timeline, at }: Change): EventEnvelope[] {
  const settledNow = new Set(
    timeline.filter((t) => t.attemptId && t.type.startsWith('attempt.') && SETTLED.has(t.type.slice(8))).map((t) => t.attemptId),
  );
  return attempts
    .filter((a) => settledNow.has(a.id) && SETTLED.has(a.status))
    .map((a) => internalEnvelope(newId('evt', at), payment, at, attemptSettledObject(attemptSettled(payment, a, at))));
}

function attemptSettled(payment: PaymentRecord, a: AttemptRecord, at: Date): AttemptSettled {
  return {
    version: 1,
    id: a.id,
    payment_id: payment.id,
    attempt_number: a.attemptNumber,
    provider_id: a.providerId,
    provider_code: a.providerCode,
    provider_account_id: a.providerAccountId,
    payment_method: payment.paymentMethodType,
    currency: payment.currency,
    country: payment.country,
    // Where the provider's answer told them (Stripe, Adyen); docs/decisions.md says what is known where.
    card_network: a.card?.network ?? null,
    bin_range: a.card?.binRange ?? null,
    status: a.status,
    outcome: a.outcome ?? a.status,
    failure_category: a.failure?.category ?? null,
    failure_code: a.failure?.code ?? null,
    latency_ms: a.latencyMs,
    amount: payment.amount,
    settled_at: at.toISOString(),
  };
}

/**
 * Read from the payment as the change leaves it, the same record the public payment.successful or
 * payment.failed serialises, so the ledger records what the merchant's event shows.
 */
export function paymentDecided(payment: PaymentRecord, event: 'payment.successful' | 'payment.failed', at: Date): PaymentDecided {
  const routed = payment.providerId !== null;
  return {
    version: 1,
    id: payment.id,
    status: event === 'payment.successful' ? 'successful' : 'failed',
    amount: payment.amount,
    captured_amount: payment.capturedAmount,
    currency: payment.currency,
    fee_amount: payment.feeAmount,
    payment_method: payment.paymentMethodType,
    country: payment.country,
    provider_id: payment.providerId,
    provider_code: routed ? payment.providerCode ?? '' : null,
    provider_name: routed ? payment.providerName ?? '' : null,
    provider_account_id: payment.providerAccountId,
    provider_payment_id: payment.providerPaymentId,
    processing_time_ms: payment.processingTimeMs,
    failure_code: payment.failure?.code ?? null,
    failure_category: payment.failure?.category ?? null,
    decided_at: at.toISOString(),
  };
}
