import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Refund } from '../../../proto/gen/svc/payments/v1/refunds_pb.js';

// The contract's JSON shape of a refund, field by field and in the contract's order. The REST API
// and the refund.* events both serialise with this. The merchant's metadata is stored but is not
// a field of the contract's Refund, so it is not shown.

export function refundJson(r: Refund): Record<string, unknown> {
  return {
    id: r.id,
    object: 'refund',
    payment_id: r.paymentId,
    // Amounts are bigint in proto; the REST layer never admits any above 2^53-1.
    amount: Number(r.amount),
    currency: r.currency,
    status: r.status,
    reason: r.reason ?? null,
    provider_refund_id: r.providerRefundId ?? null,
    failure: r.failure ? { code: r.failure.code, category: r.failure.category, message: r.failure.message } : null,
    created_at: r.createdAt ? timestampDate(r.createdAt).toISOString() : null,
  };
}
