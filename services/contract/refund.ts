import type { Refund } from '../../proto/gen/svc/payments/v1/refunds_pb.js';
import { REFUND_STATUSES } from './enums.js';
import { asOneOf, failureJson, iso } from './json-values.js';
import { minorToJson } from './money.js';
import type { RefundJson } from './resources.js';

// The contract's JSON shape of a refund, field by field and in the contract's order. The REST API
// and the refund.* events both serialise with this. The merchant's metadata is stored but is not
// a field of the contract's Refund, so it is not shown.

export function refundJson(r: Refund): RefundJson {
  return {
    id: r.id,
    object: 'refund',
    payment_id: r.paymentId,
    amount: minorToJson(r.amount),
    currency: r.currency,
    status: asOneOf(REFUND_STATUSES, r.status),
    reason: r.reason ?? null,
    provider_refund_id: r.providerRefundId ?? null,
    failure: failureJson(r.failure),
    created_at: iso(r.createdAt),
  };
}

/**
 * The failure code of a refund the provider accepted and failed afterwards (Stripe refund.failed,
 * Adyen REFUND_FAILED): payments gives its amount back to the payment, and the ledger, seeing it
 * on refund.failed, reverses the refund's recorded movement. One name for both parts.
 */
export const REFUND_FAILED_AFTER_ACCEPTANCE = 'refund_failed';

/** A refund.failed whose refund had been accepted (and recorded as successful) first. */
export const failedAfterAcceptance = (r: Pick<RefundJson, 'status' | 'failure'>): boolean =>
  r.status === 'failed' && r.failure?.code === REFUND_FAILED_AFTER_ACCEPTANCE;
