import { DEMO_PROVIDERS } from '../../contract/index.js';
import { demoPaymentId } from '../../connectors/index.js';
import { lateSuccess } from '../late-charges/late-success.js';
import { lateChargeRows } from '../late-charges/store.js';
import type { RowWrite } from '../../platform/row-writes.js';
import type { AttemptRecord, PaymentRecord } from './model.js';
import type { PaymentsStore } from './store.js';
import type { Change } from './transitions.js';

const DECIDING = new Set(['payment.successful', 'payment.authorized', 'payment.failed']);

/**
 * The sandbox's late successes: a demo provider whose status query said it never received the
 * payment reports, as the payment is decided, that it had charged after all. The `late_success`
 * scenario plays it at the first provider; without a scenario, a segment's `late_success_rate`
 * (demo-behaviour/) at any demo provider on the route. Recorded in the deciding commit as a
 * provider's notification would record it (late-charges/), so a crash cannot lose it;
 * reconciliation returns the charge at the demo provider.
 */
export function sandboxLateSuccess(store: PaymentsStore, { payment, events, at }: Change): RowWrite[] {
  if (payment.mode !== 'test') return [];
  if (!events.some((e) => typeof e === 'string' && DECIDING.has(e))) return [];
  return lateAttempts(payment).flatMap((a) => {
    const late = lateSuccess(payment, a, demoPaymentId(a.providerCode, a.id), a.providerName ?? a.providerCode, null);
    return [...lateChargeRows(late.charge, at), ...store.timelineRows(payment, [late.entry], at)];
  });
}

/**
 * The attempts that played a late success. A demo provider's status query finds every attempt it
 * answered, however slowly, so without a scenario an attempt it never received (a time-out with no
 * provider payment id: a customer's action that expired on the sandbox page is a time-out of a
 * payment the provider holds, with its id) is the behaviour's late success; with a scenario, only
 * `late_success`'s first.
 */
function lateAttempts(payment: PaymentRecord): AttemptRecord[] {
  const neverReceived = (a: AttemptRecord) => a.status === 'failed' && a.outcome === 'timeout' && a.providerPaymentId === null;
  if (payment.testScenario === 'late_success') return payment.attempts.filter((a) => a.attemptNumber === 1 && neverReceived(a));
  if (payment.testScenario) return [];
  return payment.attempts.filter((a) => neverReceived(a) && (DEMO_PROVIDERS as readonly string[]).includes(a.providerCode));
}
