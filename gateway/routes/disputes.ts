import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Client } from '@connectrpc/connect';
import type { DisputesService } from '../../proto/gen/svc/payments/v1/disputes_pb.js';
import {
  disputeDocumentJson, disputeJson, DISPUTE_STATUSES, invalidField, isOneOf, type DisputeEvidenceText,
} from '../../services/contract/index.js';
import { scopeOf } from '../auth/authenticate.js';
import type { Handlers } from './handlers.js';
import { idempotencyKeyFor } from '../edge/idempotency.js';
import { decodeCursor, page } from '../http/cursor.js';

interface EvidenceBody extends DisputeEvidenceText {
  documents?: string[];
  submit?: boolean;
}

function statusesOf(value: string | undefined): string[] {
  const statuses = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const bad = statuses.find((s) => !isOneOf(DISPUTE_STATUSES, s));
  if (bad !== undefined) throw invalidField('status', `status "${bad}" is not a dispute status`);
  return statuses;
}

export function disputeHandlers(disputes: Client<typeof DisputesService>): Handlers {
  return {
    async listDisputes(request, _reply, identity) {
      const q = request.query as { status?: string; payment_id?: string; from?: string; to?: string; limit: number; cursor?: string };
      const res = await disputes.listDisputes({
        scope: scopeOf(identity),
        statuses: statusesOf(q.status),
        paymentId: q.payment_id,
        createdFrom: q.from ? timestampFromDate(new Date(q.from)) : undefined,
        createdTo: q.to ? timestampFromDate(new Date(q.to)) : undefined,
        limit: q.limit,
        startingAfter: q.cursor === undefined ? undefined : decodeCursor(q.cursor, 'dp'),
      });
      return page(res.disputes.map((d) => disputeJson(d) as { id: string }), res.hasMore);
    },

    async getDispute(request, _reply, identity) {
      const { id } = request.params as { id: string };
      const { dispute } = await disputes.getDispute({ scope: scopeOf(identity), id });
      return disputeJson(dispute!);
    },

    async acceptDispute(request, _reply, identity) {
      const { id } = request.params as { id: string };
      const { dispute } = await disputes.acceptDispute({ scope: scopeOf(identity), id, idempotencyKey: idempotencyKeyFor(request) });
      return disputeJson(dispute!);
    },

    async submitDisputeEvidence(request, _reply, identity) {
      const { id } = request.params as { id: string };
      const b = request.body as EvidenceBody;
      const { dispute } = await disputes.submitDisputeEvidence({
        scope: scopeOf(identity),
        id,
        evidence: {
          productDescription: b.product_description, customerCommunication: b.customer_communication,
          shippingCarrier: b.shipping_carrier, shippingTrackingNumber: b.shipping_tracking_number, refundPolicy: b.refund_policy,
          uncategorizedText: b.uncategorized_text, documents: b.documents ?? [],
        },
        submit: b.submit === true,
        idempotencyKey: idempotencyKeyFor(request),
      });
      return disputeJson(dispute!);
    },

    // The content is never logged: the request logger records no bodies, and errors name the field only.
    async uploadDisputeDocument(request, reply, identity) {
      const { id } = request.params as { id: string };
      const b = request.body as { filename: string; type: string; content: string };
      const { document } = await disputes.uploadDisputeDocument({
        scope: scopeOf(identity),
        disputeId: id,
        filename: b.filename,
        type: b.type,
        content: Buffer.from(b.content, 'base64'),
        idempotencyKey: idempotencyKeyFor(request),
      });
      return reply.code(201).send(disputeDocumentJson(document!));
    },
  };
}
