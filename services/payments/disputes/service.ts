import type { ConnectRouter } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import {
  DisputesService, type DisputeEvidence as EvidenceProto,
} from '../../../proto/gen/svc/payments/v1/disputes_pb.js';
import { containsCardNumber, DISPUTE_STATUSES, invalidField, isOneOf, serviceError } from '../../contract/index.js';
import { requireScope } from '../../platform/request-guards.js';
import { MAX_DOCUMENTS, MAX_EVIDENCE_TEXT, type Disputes } from './disputes.js';
import type { DisputeEvidence } from './model.js';
import { disputeToProto, documentToProto } from './to-proto.js';

const TEXT_FIELDS = [
  ['productDescription', 'product_description'], ['customerCommunication', 'customer_communication'],
  ['shippingCarrier', 'shipping_carrier'], ['shippingTrackingNumber', 'shipping_tracking_number'],
  ['refundPolicy', 'refund_policy'], ['uncategorizedText', 'uncategorized_text'],
] as const;

/**
 * The evidence as stored, from the request; the service's own checks, for internal callers that
 * bypass the gateway (which checks the same bounds and card data first). Fields left out stay staged.
 */
function evidenceOf(e: EvidenceProto | undefined, documentsGiven: boolean): DisputeEvidence {
  const out: DisputeEvidence = {};
  for (const [field, name] of TEXT_FIELDS) {
    const value = e?.[field];
    if (value === undefined) continue;
    if (value.length > MAX_EVIDENCE_TEXT) throw invalidField(`evidence.${name}`, `${name} must be at most ${MAX_EVIDENCE_TEXT} characters`);
    if (containsCardNumber(value)) {
      throw serviceError('card_data_not_accepted', 'Card numbers are never accepted, evidence included.', { param: `evidence.${name}` });
    }
    out[name] = value;
  }
  if (documentsGiven) {
    if (e!.documents.length > MAX_DOCUMENTS) throw invalidField('evidence.documents', `at most ${MAX_DOCUMENTS} documents`);
    out.documents = [...new Set(e!.documents)];
  }
  return out;
}

export function disputeRoutes(disputes: Disputes) {
  return (router: ConnectRouter) => {
    router.service(DisputesService, {
      async getDispute(req) {
        const { dispute, documents } = await disputes.get(requireScope(req.scope), req.id);
        return { dispute: disputeToProto(dispute, documents) };
      },
      async listDisputes(req) {
        const bad = req.statuses.find((s) => !isOneOf(DISPUTE_STATUSES, s));
        if (bad !== undefined) throw invalidField('status', `status "${bad}" is not a dispute status`);
        const { disputes: list, hasMore } = await disputes.list(requireScope(req.scope), {
          statuses: req.statuses,
          paymentId: req.paymentId,
          createdFrom: req.createdFrom && timestampDate(req.createdFrom),
          createdTo: req.createdTo && timestampDate(req.createdTo),
          startingAfter: req.startingAfter,
          limit: Math.min(Math.max(req.limit || 10, 1), 100),
        });
        return { disputes: list.map((d) => disputeToProto(d)), hasMore };
      },
      async acceptDispute(req) {
        const scope = requireScope(req.scope);
        const dispute = await disputes.accept(scope, req.id);
        return { dispute: disputeToProto(dispute, (await disputes.get(scope, dispute.id)).documents) };
      },
      async submitDisputeEvidence(req) {
        const scope = requireScope(req.scope);
        // An empty documents list says nothing in proto3; the gateway sends documents_given when the body named them.
        const dispute = await disputes.evidence(scope, req.id, evidenceOf(req.evidence, (req.evidence?.documents.length ?? 0) > 0), req.submit);
        return { dispute: disputeToProto(dispute, (await disputes.get(scope, dispute.id)).documents) };
      },
      async uploadDisputeDocument(req) {
        const doc = await disputes.upload(requireScope(req.scope), req.disputeId, req.filename, req.type, req.content);
        return { document: documentToProto(doc) };
      },
    });
  };
}
