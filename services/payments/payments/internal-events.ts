import { INTERNAL_EVENT_TYPES, newId, type AttemptSettled } from '../../platform/index.js';
import { type EventEnvelope } from '../../contract/index.js';
import type { AttemptRecord, PaymentRecord } from './model.js';
import type { Change } from './transitions.js';

/**
 * The internal events a change carries beside its public ones (services/platform/internal-events.ts).
 * An attempt settles where recordAnswer narrates a definite answer (`attempt.succeeded`,
 * `.authorized`, `.failed` in the change's timeline): that entry is written once per attempt, so
 * the event is too. Pure: commit.ts writes the envelopes in the change's own statements.
 */
const SETTLED = new Set(['succeeded', 'authorized', 'failed']);

export function internalEvents({ payment, attempts, timeline, at }: Change): EventEnvelope[] {
  const settledNow = new Set(
    timeline.filter((t) => t.attemptId && t.type.startsWith('attempt.') && SETTLED.has(t.type.slice(8))).map((t) => t.attemptId),
  );
  return attempts
    .filter((a) => settledNow.has(a.id) && SETTLED.has(a.status))
    .map((a) => ({
      id: newId('evt', at),
      type: INTERNAL_EVENT_TYPES.attemptSettled,
      mode: payment.mode,
      merchant_id: payment.merchantId,
      project_id: payment.projectId,
      created_at: at.toISOString(),
      data: { object: attemptSettled(payment, a, at) as unknown as Record<string, unknown> },
    }));
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
    // Payments keeps no card network or BIN on the payment row; the vault issue adds them.
    card_network: null,
    bin_range: null,
    status: a.status,
    outcome: a.outcome ?? a.status,
    failure_category: a.failure?.category ?? null,
    failure_code: a.failure?.code ?? null,
    latency_ms: a.latencyMs,
    amount: Number(payment.amount),
    settled_at: at.toISOString(),
  };
}
