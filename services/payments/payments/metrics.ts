import { PAYMENT_METHOD_TYPES, PAYMENT_STATUSES } from '../../contract/enums.js';
import type { Metrics } from '../../platform/metrics.js';
import type { PaymentRecord } from './model.js';

// What the orchestrator decided for each payment request: its status when the request ends (a
// payment waiting for its customer is counted as requires_action then; what it becomes later is in
// the provider-call and event series), and each failover from one provider to the next.

const PROVIDER = { matches: (v: string) => /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(v) && !/^(pay|att|prj|mer|key|rf|evt|po)_/.test(v) };

export interface PaymentOutcomes {
  /** Records a payment as its create request leaves it. */
  decided(payment: PaymentRecord): void;
}

export function paymentOutcomes(metrics: Metrics | undefined): PaymentOutcomes {
  if (!metrics) return { decided: () => undefined };
  const payments = metrics.counter('svc_payments_total', 'Payments by status as their create request ended, method type and last provider', {
    status: PAYMENT_STATUSES, method: PAYMENT_METHOD_TYPES, provider: { matches: (v: string) => v === 'none' || PROVIDER.matches(v) },
  });
  const failovers = metrics.counter('svc_payment_failovers_total', 'Failovers from one provider to the next within a payment', {
    from_provider: PROVIDER, to_provider: PROVIDER,
  });
  return {
    decided(payment) {
      const attempts = payment.attempts;
      const last = attempts.at(-1);
      payments.inc({ status: payment.status, method: payment.paymentMethodType, provider: last?.providerCode ?? 'none' });
      for (let i = 1; i < attempts.length; i++) {
        failovers.inc({ from_provider: attempts[i - 1].providerCode, to_provider: attempts[i].providerCode });
      }
    },
  };
}
