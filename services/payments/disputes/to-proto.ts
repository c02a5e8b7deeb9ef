import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  DisputeDocumentSchema, DisputeEvidenceSchema, DisputeSchema, type Dispute, type DisputeDocument as DocumentProto,
} from '../../../proto/gen/svc/payments/v1/disputes_pb.js';
import type { DisputeRecord } from './model.js';
import type { DisputeDocument } from './store.js';

const opt = <T>(v: T | null): T | undefined => v ?? undefined;

export function documentToProto(d: DisputeDocument): DocumentProto {
  return create(DisputeDocumentSchema, {
    id: d.id, filename: d.filename, type: d.contentType, size: BigInt(d.size), createdAt: timestampFromDate(d.createdAt),
  });
}

/** The dispute as DisputesService answers it; its documents' descriptions when the caller read them. */
export function disputeToProto(d: DisputeRecord, documents: DisputeDocument[] = []): Dispute {
  const e = d.evidence;
  return create(DisputeSchema, {
    id: d.id,
    paymentId: d.paymentId,
    attemptId: opt(d.attemptId),
    amount: d.amount,
    currency: d.currency,
    feeAmount: d.feeAmount,
    reason: d.reason,
    providerReason: opt(d.providerReason),
    stage: d.stage,
    status: d.status,
    evidenceDueBy: d.evidenceDueBy ? timestampFromDate(d.evidenceDueBy) : undefined,
    fundsWithdrawn: d.fundsWithdrawn,
    providerId: opt(d.providerId),
    providerCode: d.providerCode,
    providerName: opt(d.providerName),
    providerAccountId: opt(d.providerAccountId),
    providerDisputeId: d.providerDisputeId,
    evidence: create(DisputeEvidenceSchema, {
      productDescription: e.product_description,
      customerCommunication: e.customer_communication,
      shippingCarrier: e.shipping_carrier,
      shippingTrackingNumber: e.shipping_tracking_number,
      refundPolicy: e.refund_policy,
      uncategorizedText: e.uncategorized_text,
      documents: e.documents ?? [],
    }),
    evidenceSubmittedAt: d.evidenceSubmittedAt ? timestampFromDate(d.evidenceSubmittedAt) : undefined,
    documents: documents.map(documentToProto),
    createdAt: timestampFromDate(d.createdAt),
    updatedAt: timestampFromDate(d.updatedAt),
  });
}
