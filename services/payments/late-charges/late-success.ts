// What a late success records, the same whoever reports it (a provider's notification, or the
// sandbox's late_success scenario): the charge to return, and the timeline entry that says so.
import type { AttemptRecord, PaymentRecord, TimelineEntry } from '../payments/model.js';
import type { LateCharge } from './late-charge.js';
import { minorToJson } from '../../contract/money.js';

export interface LateSuccess {
  charge: LateCharge;
  entry: TimelineEntry;
}

/**
 * `provider` (its name) took money for `attempt`, recorded failed, after the payment moved on:
 * that charge is returned, never made the payment's (docs/decisions/2026-12-07-a-late-success.md, "A late success").
 */
export function lateSuccess(
  payment: PaymentRecord, attempt: AttemptRecord, providerPaymentId: string, provider: string, eventId: string | null,
): LateSuccess {
  const held = payment.captureMethod === 'manual';
  return {
    charge: {
      attemptId: attempt.id, paymentId: payment.id, merchantId: payment.merchantId, projectId: payment.projectId, mode: payment.mode,
      providerCode: attempt.providerCode, providerAccountId: attempt.providerAccountId, providerPaymentId,
      amount: payment.amount, currency: payment.currency, held, status: 'returning',
    },
    entry: {
      type: 'attempt.late_success', attemptId: attempt.id,
      title: `${provider} reported a late success for an attempt recorded failed: returning the charge`,
      data: {
        attempt_id: attempt.id, provider_payment_id: providerPaymentId, amount: minorToJson(payment.amount), held,
        status: payment.status, ...(eventId && { event_id: eventId }),
      },
    },
  };
}
