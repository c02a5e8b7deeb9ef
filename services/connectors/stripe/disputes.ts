// Stripe's disputes (https://docs.stripe.com/api/disputes) for the connector interface: a Dispute
// object read as the contract's dispute (notifications, the sync, the answers to accept and
// evidence), the merchant's evidence sent with disputes.update (documents uploaded with
// files.create, purpose dispute_evidence, first), accept as disputes.close, and the sync's read of
// the dispute events Stripe made since a moment (events.list: disputes.list filters only by
// creation, so a dispute closed later would not be seen by it).
import type Stripe from 'stripe';
import type { DisputeReason, DisputeStage, DisputeStatus } from '../../contract/enums.js';
import { withSignal, type StripeAccount } from './client.js';
import { fromStripeAmount } from './amounts.js';
import {
  DisputeActionFailed, type DisputeActionAnswer, type DisputeActionRequest, type DisputeEvidenceRequest, type DisputeListRequest,
  type ProviderDispute, type ProviderNotification,
} from '../types.js';
import { isStripeError } from './outcomes.js';

/** The dispute events Stripe sends (charge.dispute.*), each carrying the Dispute as it stands. */
export const DISPUTE_EVENTS = [
  'charge.dispute.created', 'charge.dispute.updated', 'charge.dispute.closed',
  'charge.dispute.funds_withdrawn', 'charge.dispute.funds_reinstated',
] as const;

/** Stripe's status as our stage and status; null stage: won and lost do not say which round. */
const STATUSES: Record<string, { stage: DisputeStage | null; status: DisputeStatus }> = {
  warning_needs_response: { stage: 'inquiry', status: 'needs_response' },
  warning_under_review: { stage: 'inquiry', status: 'under_review' },
  // An inquiry closed without becoming a chargeback: nothing more to answer, no money moved.
  warning_closed: { stage: 'inquiry', status: 'cancelled' },
  needs_response: { stage: 'chargeback', status: 'needs_response' },
  under_review: { stage: 'chargeback', status: 'under_review' },
  appeal_needs_response: { stage: 'pre_arbitration', status: 'needs_response' },
  appeal_under_review: { stage: 'pre_arbitration', status: 'under_review' },
  won: { stage: null, status: 'won' },
  lost: { stage: null, status: 'lost' },
  // Resolved by Stripe's prevention (a refund the issuer took instead): no chargeback follows.
  prevented: { stage: null, status: 'cancelled' },
};

/** Stripe's card dispute reasons as ours; its bank-debit reasons (insufficient_funds, …) are general. */
const REASONS: Record<string, DisputeReason> = {
  fraudulent: 'fraudulent', product_not_received: 'product_not_received', product_unacceptable: 'product_unacceptable',
  duplicate: 'duplicate', credit_not_processed: 'credit_not_processed', subscription_canceled: 'subscription_canceled',
  unrecognized: 'unrecognized', general: 'general',
};

const idOf = (x: string | { id: string } | null) => (x === null ? null : typeof x === 'string' ? x : x.id);

/**
 * The dispute's withdrawal fee: the first withdrawing balance transaction's, when Stripe booked it
 * in the dispute's currency (a fee in the account's other settlement currency is left to the
 * settlement import, which books what the payout lists).
 */
function feeOf(d: Stripe.Dispute): bigint | undefined {
  const withdrawal = d.balance_transactions.find((bt) => bt.amount < 0);
  if (!withdrawal || withdrawal.currency !== d.currency) return undefined;
  return fromStripeAmount(withdrawal.fee, d.currency.toUpperCase());
}

/** A Dispute as Stripe shows it at `occurredAt` (its event's time, or now for an action's answer). */
export function disputeOf(d: Stripe.Dispute, occurredAt: Date): ProviderDispute {
  const mapped = STATUSES[d.status] ?? { stage: null, status: 'under_review' };
  const currency = d.currency.toUpperCase();
  // Withdrawn while Stripe's balance transactions of the dispute take more than they gave back.
  const net = d.balance_transactions.reduce((t, bt) => t + bt.amount, 0);
  const due = d.evidence_details?.due_by;
  return {
    providerDisputeId: d.id,
    attemptId: null,
    providerPaymentId: idOf(d.payment_intent),
    stage: mapped.stage,
    status: mapped.status,
    reason: REASONS[d.reason] ?? 'general',
    providerReason: d.reason,
    amount: fromStripeAmount(d.amount, currency),
    currency,
    feeAmount: feeOf(d),
    fundsWithdrawn: net < 0,
    evidenceDueBy: due ? new Date(due * 1000) : null,
    occurredAt,
  };
}

/** A dispute event as a notification; the event's own id keeps a webhook and the sync's read of it one. */
export function disputeNotification(event: Stripe.Event & { data: { object: Stripe.Dispute } }): ProviderNotification {
  const at = new Date(event.created * 1000);
  return { eventId: event.id, occurredAt: at, subject: { kind: 'dispute', dispute: disputeOf(event.data.object, at) } };
}

/** What an action's answer says: the Dispute after it, stage and status as mapped. */
function answerOf(d: Stripe.Dispute): DisputeActionAnswer {
  const { stage, status, fundsWithdrawn, evidenceDueBy } = disputeOf(d, new Date());
  return { ...(stage && { stage }), status, fundsWithdrawn, evidenceDueBy };
}

/** Stripe's refusal in its own words (never a credential), or an unreachable Stripe. */
function failure(err: unknown): never {
  if (isStripeError(err) && err.type !== 'StripeConnectionError' && err.type !== 'StripeAPIError' && (err.statusCode ?? 500) < 500) {
    throw new DisputeActionFailed('declined', err.message);
  }
  throw new DisputeActionFailed('unavailable', 'Stripe could not be reached');
}

/**
 * Stripe's evidence fields that take a file, in the order our documents fill them (Stripe takes one
 * file per field): a merchant's eighth document and beyond are refused rather than dropped.
 */
const FILE_FIELDS = [
  'uncategorized_file', 'receipt', 'shipping_documentation', 'customer_communication', 'refund_policy',
  'service_documentation', 'cancellation_policy', 'duplicate_charge_documentation',
] as const;

/** Our evidence as Stripe's fields: texts where Stripe has one, the customer communication (a file field at Stripe) in the text. */
export function evidenceParams(e: DisputeEvidenceRequest['evidence'], fileIds: string[]): Stripe.DisputeUpdateParams.Evidence {
  const text = [
    e.customer_communication && `Customer communication:\n${e.customer_communication}`, e.uncategorized_text,
  ].filter(Boolean).join('\n\n');
  return {
    ...(e.product_description && { product_description: e.product_description }),
    ...(e.shipping_carrier && { shipping_carrier: e.shipping_carrier }),
    ...(e.shipping_tracking_number && { shipping_tracking_number: e.shipping_tracking_number }),
    ...(e.refund_policy && { refund_policy_disclosure: e.refund_policy }),
    ...(text && { uncategorized_text: text }),
    ...Object.fromEntries(fileIds.map((id, i) => [FILE_FIELDS[i], id])),
  };
}

export function createStripeDisputes(forAccount: (accountId: string) => Promise<StripeAccount | undefined>) {
  async function client(accountId: string): Promise<Stripe> {
    const account = await forAccount(accountId);
    if (!account) throw new DisputeActionFailed('declined', 'The account has no Stripe secret key stored.');
    return account.client;
  }

  return {
    async acceptDispute(req: DisputeActionRequest): Promise<DisputeActionAnswer> {
      const stripe = await client(req.account.id);
      try {
        const closed = await withSignal(req.signal, () => stripe.disputes.close(req.providerDisputeId));
        // Stripe marks a closed dispute lost (an inquiry warning_closed); ours says the merchant accepted it.
        return { ...answerOf(closed), status: 'accepted' };
      } catch (err) {
        return failure(err);
      }
    },

    async submitDisputeEvidence(req: DisputeEvidenceRequest): Promise<DisputeActionAnswer> {
      if (req.documents.length > FILE_FIELDS.length) {
        throw new DisputeActionFailed('declined', `Stripe takes at most ${FILE_FIELDS.length} evidence documents; combine some into one PDF.`);
      }
      const stripe = await client(req.account.id);
      try {
        const fileIds: string[] = [];
        for (const doc of req.documents) {
          const file = await withSignal(req.signal, () => stripe.files.create({
            purpose: 'dispute_evidence', file: { data: doc.content, name: doc.filename, type: doc.contentType },
          }, { idempotencyKey: `${req.providerDisputeId}-${doc.id}` }));
          fileIds.push(file.id);
        }
        const updated = await withSignal(req.signal, () => stripe.disputes.update(req.providerDisputeId, {
          evidence: evidenceParams(req.evidence, fileIds), submit: true,
        }));
        return answerOf(updated);
      } catch (err) {
        return failure(err);
      }
    },

    /** Every dispute event since `since` (Stripe keeps events 30 days), oldest first, as notifications. */
    async listDisputes(req: DisputeListRequest): Promise<ProviderNotification[]> {
      const stripe = await client(req.account.id);
      const found: ProviderNotification[] = [];
      await withSignal(req.signal, () => stripe.events.list({
        types: [...DISPUTE_EVENTS], created: { gte: Math.floor(req.since.getTime() / 1000) }, limit: 100,
      }).autoPagingEach((event) => {
        found.push(disputeNotification(event as Stripe.Event & { data: { object: Stripe.Dispute } }));
      }));
      return found.reverse();
    },
  };
}
