// Checkout.com's disputes (https://api-reference.checkout.com/#tag/Disputes) for the connector
// interface: its dispute_* webhooks and its disputes (GET /disputes?from=, filtered by last_update,
// for the sync) read as the contract's dispute; accept (POST /disputes/{id}/accept); evidence as
// files uploaded (POST /files, purpose dispute_evidence), provideEvidence (PUT
// /disputes/{id}/evidence) and submit (POST /disputes/{id}/evidence), all through checkout-sdk-node.
import type { DisputeReason, DisputeStage, DisputeStatus } from '../../contract/enums.js';
import { fromCheckoutAmount } from './amounts.js';
import type { CheckoutAccount } from './client.js';
import { isCheckoutError } from './outcomes.js';
import {
  DisputeActionFailed, type DisputeActionAnswer, type DisputeActionRequest, type DisputeEvidenceRequest, type DisputeListRequest,
  type ProviderDispute, type ProviderNotification,
} from '../types.js';

/** A dispute as Checkout.com's webhooks (`data`) and its GET /disputes items show it. */
export interface CheckoutDispute {
  id?: string;
  category?: string;
  status?: string;
  amount?: number;
  currency?: string;
  reason_code?: string;
  payment_id?: string;
  payment_reference?: string;
  evidence_required_by?: string;
  last_update?: string;
}

type Mapped = { stage: DisputeStage | null; status: DisputeStatus; withdrawn: boolean };

/**
 * Checkout.com's dispute statuses as ours. It debits the disputed amount when evidence is required
 * and credits it back when the dispute is won or canceled by the issuer: a cancellation with the
 * money back is, for the merchant, a won dispute. resolved: the payment was refunded before, no money moves.
 */
const STATUSES: Record<string, Mapped> = {
  evidence_required: { stage: 'chargeback', status: 'needs_response', withdrawn: true },
  unresolved: { stage: 'chargeback', status: 'under_review', withdrawn: true },
  evidence_under_review: { stage: 'chargeback', status: 'under_review', withdrawn: true },
  accepted: { stage: null, status: 'accepted', withdrawn: true },
  expired: { stage: null, status: 'expired', withdrawn: true },
  lost: { stage: null, status: 'lost', withdrawn: true },
  won: { stage: null, status: 'won', withdrawn: false },
  canceled: { stage: null, status: 'won', withdrawn: false },
  resolved: { stage: null, status: 'cancelled', withdrawn: false },
  arbitration_under_review: { stage: 'pre_arbitration', status: 'under_review', withdrawn: true },
  arbitration_won: { stage: 'pre_arbitration', status: 'won', withdrawn: false },
  arbitration_lost: { stage: 'pre_arbitration', status: 'lost', withdrawn: true },
};

/** Each dispute webhook as the status it reports (its `data` carries no status of its own). */
const EVENTS: Record<string, string> = {
  dispute_received: 'evidence_required',
  dispute_evidence_required: 'evidence_required',
  dispute_evidence_submitted: 'evidence_under_review',
  dispute_evidence_acknowledged_by_scheme: 'evidence_under_review',
  dispute_accepted: 'accepted',
  dispute_expired: 'expired',
  dispute_lost: 'lost',
  dispute_won: 'won',
  dispute_canceled: 'canceled',
  dispute_resolved: 'resolved',
  dispute_arbitration_evidence_submitted: 'arbitration_under_review',
  dispute_arbitration_sent_to_scheme: 'arbitration_under_review',
  dispute_arbitration_won: 'arbitration_won',
  dispute_arbitration_lost: 'arbitration_lost',
};

export const isDisputeEvent = (type: string): boolean => Object.hasOwn(EVENTS, type);

const REASONS: Record<string, DisputeReason> = {
  fraudulent: 'fraudulent', unrecognized: 'unrecognized', canceled_recurring: 'subscription_canceled',
  product_service_not_received: 'product_not_received', not_as_described: 'product_unacceptable',
  credit_not_issued: 'credit_not_processed', duplicate: 'duplicate', incorrect_amount: 'general', general: 'general',
};

/** A dispute in the status `status` (Checkout.com's), as Checkout.com showed it at `occurredAt`. */
export function disputeOf(d: CheckoutDispute, status: string, occurredAt: Date): ProviderDispute {
  const mapped = STATUSES[status] ?? { stage: null, status: 'under_review', withdrawn: true };
  const currency = (d.currency ?? '').toUpperCase();
  const due = d.evidence_required_by ? new Date(d.evidence_required_by) : undefined;
  return {
    providerDisputeId: d.id ?? '',
    attemptId: d.payment_reference || null,
    providerPaymentId: d.payment_id ?? null,
    stage: mapped.stage,
    status: mapped.status,
    reason: REASONS[d.category ?? ''] ?? 'general',
    providerReason: [d.category, d.reason_code && `(${d.reason_code})`].filter(Boolean).join(' ') || null,
    amount: fromCheckoutAmount(d.amount ?? 0, currency),
    currency,
    fundsWithdrawn: mapped.withdrawn,
    evidenceDueBy: due && !Number.isNaN(due.getTime()) ? due : undefined,
    occurredAt,
  };
}

/** A dispute webhook's subject: its data read in the status its type reports. */
export function disputeEvent(type: string, data: CheckoutDispute, occurredAt: Date): ProviderDispute {
  return disputeOf(data, EVENTS[type]!, occurredAt);
}

/** A refusal in Checkout.com's words (a 4xx: its error codes), or an unreachable Checkout.com. */
function failure(err: unknown): never {
  if (err instanceof DisputeActionFailed) throw err;
  const status = (err as { http_code?: number }).http_code;
  if (isCheckoutError(err) && status !== undefined && status < 500) {
    const codes = ((err as { body?: { error_codes?: string[] } }).body?.error_codes ?? []).join(', ');
    throw new DisputeActionFailed('declined', `Checkout.com answered ${status}${codes ? ` (${codes})` : ''}`);
  }
  throw new DisputeActionFailed('unavailable', 'Checkout.com could not be reached');
}

/** Our evidence as Checkout.com's fields; documents fill its file fields in this order, the rest go to additional evidence. */
export function evidenceBody(e: DisputeEvidenceRequest['evidence'], fileIds: string[]): Record<string, string> {
  const delivery = [e.shipping_carrier, e.shipping_tracking_number && `tracking ${e.shipping_tracking_number}`].filter(Boolean).join(', ');
  const additional = [e.product_description && `Product: ${e.product_description}`, e.uncategorized_text].filter(Boolean).join('\n\n');
  const [first, ...rest] = fileIds;
  return {
    ...(delivery && { proof_of_delivery_or_service_text: delivery }),
    ...(e.customer_communication && { customer_communication_text: e.customer_communication }),
    ...(e.refund_policy && { refund_or_cancellation_policy_text: e.refund_policy }),
    ...(additional && { additional_evidence_text: additional }),
    ...(first && { additional_evidence_file: first }),
    ...Object.fromEntries(rest.slice(0, FILE_FIELDS.length).map((id, i) => [FILE_FIELDS[i], id])),
  };
}

/** Checkout.com's further file fields, one file each (a merchant's documents beyond them are refused). */
const FILE_FIELDS = ['proof_of_delivery_or_service_file', 'invoice_or_receipt_file', 'customer_communication_file', 'refund_or_cancellation_policy_file'];

export function createCheckoutDisputes(forAccount: (accountId: string) => Promise<CheckoutAccount | undefined>) {
  async function account(id: string): Promise<CheckoutAccount> {
    const a = await forAccount(id);
    if (!a) throw new DisputeActionFailed('declined', 'The account has no Checkout.com secret key stored.');
    return a;
  }

  return {
    async acceptDispute(req: DisputeActionRequest): Promise<DisputeActionAnswer> {
      const a = await account(req.account.id);
      try {
        await a.call(req.signal, (c) => c.disputes.accept(req.providerDisputeId));
        return { status: 'accepted' };
      } catch (err) {
        return failure(err);
      }
    },

    async submitDisputeEvidence(req: DisputeEvidenceRequest): Promise<DisputeActionAnswer> {
      if (req.documents.length > FILE_FIELDS.length + 1) {
        throw new DisputeActionFailed('declined', `Checkout.com takes at most ${FILE_FIELDS.length + 1} evidence documents; combine some into one PDF.`);
      }
      const a = await account(req.account.id);
      try {
        const fileIds: string[] = [];
        for (const doc of req.documents) {
          // form-data names the part by the value's `name` (and types it by the name's extension).
          const file = Object.assign(Buffer.from(doc.content), { name: doc.filename });
          const uploaded = await a.call(req.signal, (c) => c.files.upload({ file, purpose: 'dispute_evidence' } as never)) as { id: string };
          fileIds.push(uploaded.id);
        }
        await a.call(req.signal, (c) => c.disputes.provideEvidence(req.providerDisputeId, evidenceBody(req.evidence, fileIds)));
        await a.call(req.signal, (c) => c.disputes.submit(req.providerDisputeId));
        return { status: 'under_review' };
      } catch (err) {
        return failure(err);
      }
    },

    /** Disputes whose last_update is at or after `since`, page by page, each as a notification of its state. */
    async listDisputes(req: DisputeListRequest): Promise<ProviderNotification[]> {
      const a = await account(req.account.id);
      const found: ProviderNotification[] = [];
      for (let skip = 0; ; skip += 250) {
        const page = await a.call(req.signal, (c) => c.disputes.get({ from: req.since.toISOString(), limit: 250, skip })) as {
          data?: CheckoutDispute[]; total_count?: number;
        };
        for (const d of page.data ?? []) {
          if (!d.id || !d.status) continue;
          const at = new Date(d.last_update ?? '');
          const occurredAt = Number.isNaN(at.getTime()) ? new Date() : at;
          found.push({
            eventId: `${d.id}:${d.status}:${occurredAt.toISOString()}`, occurredAt,
            subject: { kind: 'dispute', dispute: disputeOf(d, d.status, occurredAt) },
          });
        }
        if ((page.data ?? []).length < 250) break;
      }
      // Checkout.com lists the last modified first; applied oldest first.
      return found.reverse();
    },
  };
}
