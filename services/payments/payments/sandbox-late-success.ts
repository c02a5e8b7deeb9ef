import { demoPaymentId } from '../connectors/index.js';
import { lateChargeStatements, lateSuccess } from '../late-charges/index.js';
import type { Statement } from '../../platform/index.js';
import type { PaymentsStore } from './store.js';
import type { Change } from './transitions.js';

const DECIDING = new Set(['payment.successful', 'payment.authorized', 'payment.failed']);

/**
 * The sandbox's `late_success` scenario: the first demo provider, whose status query said it never
 * received the payment, reports as the payment is decided elsewhere that it had charged after all.
 * Recorded in the deciding commit as a provider's notification would record it (late-charges/), so
 * a crash cannot lose it; reconciliation returns the charge at the demo provider.
 */
export function sandboxLateSuccess(store: PaymentsStore, { payment, events, at }: Change): Statement[] {
  if (payment.testScenario !== 'late_success' || payment.mode !== 'test') return [];
  if (!events.some((e) => typeof e === 'string' && DECIDING.has(e))) return [];
  const first = payment.attempts.find((a) => a.attemptNumber === 1);
  if (!first || first.status !== 'failed' || first.outcome !== 'timeout') return [];
  const late = lateSuccess(payment, first, demoPaymentId(first.providerCode, first.id), first.providerName ?? first.providerCode, null);
  return [...lateChargeStatements(late.charge, at), ...store.timelineStatements(payment, [late.entry], at)];
}
