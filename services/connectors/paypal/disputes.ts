// PayPal's customer disputes (https://developer.paypal.com/docs/api/customer-disputes/v1/) for the
// connector interface. @paypal/paypal-server-sdk has no disputes controller, so its calls go
// through the SDK's own request builder (its OAuth token, its axios and the account's provider
// fetch, as every PayPal call): GET /v1/customer/disputes?update_time_after= (for the sync) and
// /{id}, POST /{id}/accept-claim, POST /{id}/provide-evidence (multipart: the `input` JSON part and
// the documents). Its CUSTOMER.DISPUTE.* webhooks carry the dispute as their resource.
import { randomBytes } from 'node:crypto';
import type { DisputeReason, DisputeStage, DisputeStatus } from '../../contract/enums.js';
import { fromPayPalValue } from './amounts.js';
import { paypalSdk, type PayPalAccount } from './client.js';
import { isPayPalError } from './outcomes.js';
import {
  DisputeActionFailed, type DisputeActionAnswer, type DisputeActionRequest, type DisputeEvidenceRequest, type DisputeListRequest,
  type ProviderDispute, type ProviderNotification,
} from '../types.js';

/** A dispute as PayPal shows it (the webhooks' resource, GET /v1/customer/disputes/{id}). */
export interface PayPalDispute {
  dispute_id?: string;
  update_time?: string;
  reason?: string;
  status?: string;
  dispute_life_cycle_stage?: string;
  dispute_amount?: { currency_code?: string; value?: string };
  dispute_outcome?: { outcome_code?: string };
  seller_response_due_date?: string;
  /** custom: the purchase unit's custom_id, which the connector sets to our attempt id. */
  disputed_transactions?: Array<{ seller_transaction_id?: string; custom?: string }>;
}

const STAGES: Record<string, DisputeStage> = {
  INQUIRY: 'inquiry', CHARGEBACK: 'chargeback', PRE_ARBITRATION: 'pre_arbitration', ARBITRATION: 'pre_arbitration',
};

const REASONS: Record<string, DisputeReason> = {
  MERCHANDISE_OR_SERVICE_NOT_RECEIVED: 'product_not_received', MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED: 'product_unacceptable',
  UNAUTHORISED: 'fraudulent', CREDIT_NOT_PROCESSED: 'credit_not_processed', DUPLICATE_TRANSACTION: 'duplicate',
  CANCELED_RECURRING_BILLING: 'subscription_canceled',
};

/**
 * A resolved dispute's outcome as ours. The merchant keeps the money when PayPal decides for it,
 * denies the claim, pays the buyer itself (seller protection) or the buyer cancels a claim: all won
 * (a cancelled inquiry moved no money and is cancelled).
 */
function outcomeOf(code: string | undefined, stage: DisputeStage): DisputeStatus {
  switch (code) {
    case 'RESOLVED_BUYER_FAVOUR': return 'lost';
    case 'ACCEPTED': return 'accepted';
    case 'CANCELED_BY_BUYER': return stage === 'inquiry' ? 'cancelled' : 'won';
    default: return 'won';
  }
}

/** The dispute as the contract's, at its update time. */
export function disputeOf(d: PayPalDispute, fallbackAt: Date): ProviderDispute {
  const stage = STAGES[d.dispute_life_cycle_stage ?? ''] ?? 'chargeback';
  const status: DisputeStatus = d.status === 'RESOLVED' ? outcomeOf(d.dispute_outcome?.outcome_code, stage)
    : d.status === 'WAITING_FOR_SELLER_RESPONSE' || d.status === 'OPEN' ? 'needs_response' : 'under_review';
  const currency = (d.dispute_amount?.currency_code ?? '').toUpperCase();
  const at = new Date(d.update_time ?? '');
  const due = d.seller_response_due_date ? new Date(d.seller_response_due_date) : undefined;
  const tx = d.disputed_transactions?.[0];
  return {
    providerDisputeId: d.dispute_id ?? '',
    attemptId: tx?.custom || null,
    providerPaymentId: tx?.seller_transaction_id ?? null,
    stage,
    status,
    reason: REASONS[d.reason ?? ''] ?? 'general',
    providerReason: d.reason ?? null,
    amount: fromPayPalValue(d.dispute_amount?.value ?? '0', currency) ?? 0n,
    currency,
    // PayPal holds the disputed amount from a claim on (a chargeback or PayPal claim), never for an inquiry.
    fundsWithdrawn: stage !== 'inquiry' && status !== 'won' && status !== 'cancelled',
    evidenceDueBy: due && !Number.isNaN(due.getTime()) ? due : undefined,
    occurredAt: Number.isNaN(at.getTime()) ? fallbackAt : at,
  };
}

type Body = { json: unknown } | { multipart: { contentType: string; bytes: Buffer } };

/** One call of PayPal's REST API through the SDK's request builder; the JSON answer. */
async function call(account: PayPalAccount, method: string, path: string, signal: AbortSignal, opts: { query?: Record<string, string>; body?: Body } = {}) {
  const { FileWrapper } = await paypalSdk.load();
  const rb = account.client.getRequestBuilderFactory()(method as 'GET', path);
  if (opts.query) rb.query(opts.query);
  if (opts.body && 'json' in opts.body) {
    rb.header('Content-Type', 'application/json');
    rb.text(JSON.stringify(opts.body.json));
  } else if (opts.body) {
    rb.header('Content-Type', opts.body.multipart.contentType);
    rb.stream(new FileWrapper(new Blob([opts.body.multipart.bytes])));
  }
  rb.authenticate([{ oauth2: true }]);
  const res = await rb.callAsText({ abortSignal: signal });
  return (res.result ? JSON.parse(res.result) : {}) as Record<string, unknown>;
}

function failure(err: unknown): never {
  if (err instanceof DisputeActionFailed) throw err;
  const status = (err as { statusCode?: number }).statusCode;
  if (isPayPalError(err) && status !== undefined && status < 500) {
    throw new DisputeActionFailed('declined', `PayPal answered ${status}`);
  }
  throw new DisputeActionFailed('unavailable', 'PayPal could not be reached');
}

/** Our evidence as PayPal's evidences: proof of fulfillment with the tracking, the rest as notes. */
export function evidenceInput(e: DisputeEvidenceRequest['evidence']): Record<string, unknown> {
  const notes = [
    e.product_description && `Product: ${e.product_description}`, e.customer_communication && `Customer communication: ${e.customer_communication}`,
    e.refund_policy && `Refund policy: ${e.refund_policy}`, e.uncategorized_text,
  ].filter(Boolean).join('\n\n');
  const tracking = e.shipping_tracking_number
    ? [{ evidence_type: 'PROOF_OF_FULFILLMENT', evidence_info: { tracking_info: [{ carrier_name: e.shipping_carrier || 'OTHER', tracking_number: e.shipping_tracking_number }] } }]
    : [];
  return { evidences: [...tracking, { evidence_type: 'OTHER', notes: notes || 'See the documents attached.' }] };
}

/** multipart/form-data with the `input` JSON part and each document as an `evidence-file` part. */
function multipart(input: unknown, documents: DisputeEvidenceRequest['documents']): { contentType: string; bytes: Buffer } {
  const boundary = `svc${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="input"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(input)}\r\n`)];
  for (const d of documents) {
    const name = d.filename.replace(/["\r\n]/g, '_');
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="evidence-file"; filename="${name}"\r\nContent-Type: ${d.contentType}\r\n\r\n`), d.content, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, bytes: Buffer.concat(parts) };
}

export function createPayPalDisputes(forAccount: (accountId: string) => Promise<PayPalAccount | undefined>) {
  async function account(id: string): Promise<PayPalAccount> {
    const a = await forAccount(id);
    if (!a) throw new DisputeActionFailed('declined', 'The account has no PayPal client id and secret stored.');
    return a;
  }
  const path = (id: string, action = '') => `/v1/customer/disputes/${encodeURIComponent(id)}${action}`;

  return {
    async acceptDispute(req: DisputeActionRequest): Promise<DisputeActionAnswer> {
      const a = await account(req.account.id);
      try {
        await call(a, 'POST', path(req.providerDisputeId, '/accept-claim'), req.signal, { body: { json: { note: 'The merchant accepts the claim.' } } });
        return { status: 'accepted' };
      } catch (err) {
        return failure(err);
      }
    },

    async submitDisputeEvidence(req: DisputeEvidenceRequest): Promise<DisputeActionAnswer> {
      const a = await account(req.account.id);
      try {
        await call(a, 'POST', path(req.providerDisputeId, '/provide-evidence'), req.signal, {
          body: { multipart: multipart(evidenceInput(req.evidence), req.documents) },
        });
        return { status: 'under_review' };
      } catch (err) {
        return failure(err);
      }
    },

    /** Disputes updated since `since` (the list's summaries, each read whole for its transaction), oldest first. */
    async listDisputes(req: DisputeListRequest): Promise<ProviderNotification[]> {
      const a = await account(req.account.id);
      const found: ProviderNotification[] = [];
      let next: string | undefined;
      do {
        const page = await call(a, 'GET', '/v1/customer/disputes', req.signal, {
          query: next ? { next_page_token: next } : { update_time_after: req.since.toISOString(), page_size: '50' },
        }) as { items?: PayPalDispute[]; links?: Array<{ rel?: string; href?: string }> };
        for (const item of page.items ?? []) {
          if (!item.dispute_id) continue;
          const d = await call(a, 'GET', path(item.dispute_id), req.signal) as PayPalDispute;
          const dispute = disputeOf(d, new Date());
          found.push({ eventId: `${item.dispute_id}:${d.update_time ?? ''}`, occurredAt: dispute.occurredAt, subject: { kind: 'dispute', dispute } });
        }
        const href = page.links?.find((l) => l.rel === 'next')?.href;
        next = href ? new URL(href, 'https://api-m.paypal.com').searchParams.get('next_page_token') ?? undefined : undefined;
      } while (next);
      return found.sort((x, y) => x.occurredAt.getTime() - y.occurredAt.getTime());
    },
  };
}
