import type { Dispute, DisputeDocument } from '../../proto/gen/svc/payments/v1/disputes_pb.js';
import type { DisputeSummary } from '../../proto/gen/svc/payments/v1/payments_pb.js';
import { DISPUTE_REASONS, DISPUTE_STAGES, DISPUTE_STATUSES } from './enums.js';
import { asOneOf, iso, isoOrNull, orNull } from './json-values.js';
import { minorToJson } from './money.js';
import type { DisputeDocumentJson, DisputeJson, DisputeSummaryJson } from './resources.js';

// The contract's JSON shape of a dispute: the REST API and the dispute.* events serialise with this.

export function disputeDocumentJson(d: DisputeDocument): DisputeDocumentJson {
  return { id: d.id, object: 'dispute_document', filename: d.filename, type: d.type, size: Number(d.size), created_at: iso(d.createdAt) };
}

export function disputeJson(d: Dispute): DisputeJson {
  const e = d.evidence;
  return {
    id: d.id,
    object: 'dispute',
    payment_id: d.paymentId,
    attempt_id: orNull(d.attemptId),
    amount: minorToJson(d.amount),
    currency: d.currency,
    fee_amount: minorToJson(d.feeAmount),
    reason: asOneOf(DISPUTE_REASONS, d.reason),
    provider_reason: orNull(d.providerReason),
    stage: asOneOf(DISPUTE_STAGES, d.stage),
    status: asOneOf(DISPUTE_STATUSES, d.status),
    evidence_due_by: isoOrNull(d.evidenceDueBy),
    funds_withdrawn: d.fundsWithdrawn,
    provider: { id: orNull(d.providerId), code: d.providerCode, name: orNull(d.providerName) },
    provider_account_id: orNull(d.providerAccountId),
    provider_dispute_id: d.providerDisputeId,
    evidence: {
      product_description: orNull(e?.productDescription),
      customer_communication: orNull(e?.customerCommunication),
      shipping_carrier: orNull(e?.shippingCarrier),
      shipping_tracking_number: orNull(e?.shippingTrackingNumber),
      refund_policy: orNull(e?.refundPolicy),
      uncategorized_text: orNull(e?.uncategorizedText),
      documents: [...(e?.documents ?? [])],
    },
    evidence_submitted_at: isoOrNull(d.evidenceSubmittedAt),
    documents: d.documents.map(disputeDocumentJson),
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
  };
}

/** The summary the payment resource lists its disputes by. */
export function disputeSummaryJson(d: DisputeSummary): DisputeSummaryJson {
  return {
    id: d.id, amount: minorToJson(d.amount), currency: d.currency, reason: asOneOf(DISPUTE_REASONS, d.reason),
    stage: asOneOf(DISPUTE_STAGES, d.stage), status: asOneOf(DISPUTE_STATUSES, d.status), funds_withdrawn: d.fundsWithdrawn,
    evidence_due_by: isoOrNull(d.evidenceDueBy), created_at: iso(d.createdAt),
  };
}
