import { serviceError } from '../../contract/index.js';
import type { PaymentRecord } from './model.js';

/**
 * The payment state machine of the contract, and nothing else. Every operation on an existing
 * payment asks here first; anything not listed is 409 invalid_state_transition.
 *
 * created ──attempt──▶ (in flight: stays created) ──▶ successful | authorized | processing | failed
 * processing (awaiting the customer) ──▶ successful | authorized | failed | cancelled
 * authorized ──capture──▶ captured;  authorized ──cancel/expiry──▶ cancelled
 * successful | captured | partially_refunded ──refund settles──▶ partially_refunded | refunded
 * partially_refunded | refunded ──a settled refund fails at the provider──▶ partially_refunded |
 *   successful (automatic capture) | captured (manual), by what stays refunded (statusAfterRefunds)
 */
export type PaymentOperation = 'capture' | 'cancel' | 'refund' | 'expire_authorization' | 'complete_customer_action';

/** An attempt is at a provider right now: the payment may not be cancelled under it. */
export function inFlight(p: PaymentRecord): boolean {
  return p.attempts.some((a) => a.status === 'processing' && a.outcome === null);
}

/** Waiting for the customer on a hosted page (redirect, QR, bank details). */
export function awaitingCustomer(p: PaymentRecord): boolean {
  return p.status === 'processing' && p.attempts.some((a) => a.status === 'processing' && a.outcome === 'requires_action');
}

/**
 * A completed payment's status from what is refunded of what was captured: the one rule both a
 * refund settling and a settled refund failing later (its amount given back) move the payment by.
 * Nothing refunded any more returns it to where it stood before its first refund.
 */
export function statusAfterRefunds(p: Pick<PaymentRecord, 'refundedAmount' | 'capturedAmount' | 'captureMethod'>): string {
  if (p.refundedAmount <= 0n) return p.captureMethod === 'manual' ? 'captured' : 'successful';
  return p.refundedAmount >= p.capturedAmount ? 'refunded' : 'partially_refunded';
}

function allowed(op: PaymentOperation, p: PaymentRecord): boolean {
  switch (op) {
    case 'capture':
    case 'expire_authorization':
      return p.status === 'authorized';
    case 'cancel':
      return (['created', 'pending', 'authorized'].includes(p.status) && !inFlight(p)) || awaitingCustomer(p);
    case 'refund':
      return ['successful', 'captured', 'partially_refunded'].includes(p.status);
    case 'complete_customer_action':
      return awaitingCustomer(p);
  }
}

const WHY: Record<PaymentOperation, string> = {
  capture: 'only an authorized payment can be captured',
  expire_authorization: 'only an authorized payment can expire',
  cancel: 'only a created, pending or authorized payment, or one awaiting the customer, can be cancelled; not one being sent to a provider',
  refund: 'only a successful, captured or partially refunded payment can be refunded',
  complete_customer_action: 'the payment is not awaiting the customer',
};

export function assertAllowed(op: PaymentOperation, p: PaymentRecord): void {
  if (!allowed(op, p)) {
    throw serviceError('invalid_state_transition', `Payment ${p.id} is ${p.status}: ${WHY[op]}.`, { param: 'id' });
  }
}
