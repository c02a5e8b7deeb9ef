// PayPal's customer disputes in the PayPal stand-in, from its reference
// (https://developer.paypal.com/docs/api/customer-disputes/v1/):
//   GET /v1/customer/disputes?update_time_after=&page_size=   summaries updated since, newest first
//   GET /v1/customer/disputes/{id}                            the dispute, with its disputed transaction
//   POST /v1/customer/disputes/{id}/accept-claim              RESOLVED, outcome ACCEPTED
//   POST /v1/customer/disputes/{id}/provide-evidence          multipart: `input` (JSON evidences) and evidence files; UNDER_REVIEW
// The buyer's side is the test's: openDispute on a captured order (its capture and custom_id in the
// disputed transaction), resolve to decide it.
import type { StandInOrder } from './paypal-stand-in.js';

type Answer = { status: number; body: Record<string, unknown> };

export type StandInPayPalDispute = Record<string, any> & { dispute_id: string; status: string; update_time: string };

/** What provide-evidence received: the input's evidences and each file part's name, type and whether it is a PDF. */
export interface ProvidedEvidence {
  disputeId: string;
  input: Record<string, any>;
  files: Array<{ filename: string; contentType: string; pdf: boolean }>;
}

const notFound = (): Answer => ({ status: 404, body: { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.' } });
const unprocessable = (issue: string): Answer => ({
  status: 422, body: { name: 'UNPROCESSABLE_ENTITY', message: 'The requested action could not be performed.', details: [{ issue }] },
});

export function createPayPalDisputeEndpoints(orders: Map<string, StandInOrder>) {
  const disputes = new Map<string, StandInPayPalDispute>();
  const provided: ProvidedEvidence[] = [];
  let seq = 0;
  const touch = (d: StandInPayPalDispute) => {
    // Each change a millisecond after the last at least, as PayPal's update_time orders them.
    d.update_time = new Date(Math.max(Date.now(), new Date(d.update_time).getTime() + 1)).toISOString();
    return d;
  };

  function openDispute(orderId: string, reason = 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED'): StandInPayPalDispute {
    const order = orders.get(orderId)!;
    const unit = order.purchase_units[0]!;
    const capture = unit.payments?.captures?.[0];
    const now = new Date();
    const d: StandInPayPalDispute = {
      dispute_id: `PP-D-${Date.now()}${++seq}`, create_time: now.toISOString(), update_time: now.toISOString(),
      disputed_transactions: [{ seller_transaction_id: capture?.id, custom: unit.custom_id, seller_protection_eligible: true }],
      reason, status: 'WAITING_FOR_SELLER_RESPONSE', dispute_amount: { ...unit.amount },
      dispute_life_cycle_stage: 'CHARGEBACK', dispute_channel: 'INTERNAL',
      seller_response_due_date: new Date(now.getTime() + 10 * 86_400_000).toISOString(),
    };
    disputes.set(d.dispute_id, d);
    return d;
  }

  function resolve(id: string, outcome: string): StandInPayPalDispute {
    return touch(Object.assign(disputes.get(id)!, { status: 'RESOLVED', dispute_outcome: { outcome_code: outcome } }));
  }

  function evidence(d: StandInPayPalDispute, contentType: string, raw: string): Answer {
    const boundary = /boundary=([^;]+)/.exec(contentType)?.[1];
    if (!boundary) return unprocessable('INVALID_CONTENT_TYPE');
    const parts = raw.split(`--${boundary}`).slice(1, -1);
    const input = parts.find((p) => p.includes('name="input"'));
    if (!input) return unprocessable('MISSING_INPUT');
    const files = parts.filter((p) => p.includes('name="evidence-file"')).map((p) => ({
      filename: /filename="([^"]*)"/.exec(p)?.[1] ?? '', contentType: /Content-Type: ([^\r\n]+)/i.exec(p)?.[1] ?? '',
      pdf: p.split('\r\n\r\n')[1]?.startsWith('%PDF') ?? false,
    }));
    provided.push({ disputeId: d.dispute_id, input: JSON.parse(input.split('\r\n\r\n')[1]!.replace(/\r\n$/, '')), files });
    touch(Object.assign(d, { status: 'UNDER_REVIEW' }));
    return { status: 200, body: { links: [{ href: `/v1/customer/disputes/${d.dispute_id}`, rel: 'self', method: 'GET' }] } };
  }

  /** The disputes' calls, or undefined for a path that is not theirs. */
  function route(method: string, url: URL, contentType: string, raw: string): Answer | undefined {
    if (method === 'GET' && url.pathname === '/v1/customer/disputes') {
      const after = new Date(url.searchParams.get('update_time_after') ?? 0).getTime();
      const items = [...disputes.values()].filter((d) => new Date(d.update_time).getTime() > after)
        .sort((x, y) => y.update_time.localeCompare(x.update_time))
        .map(({ dispute_id, create_time, update_time, reason, status, dispute_amount }) => ({ dispute_id, create_time, update_time, reason, status, dispute_amount }));
      return { status: 200, body: { items, links: [] } };
    }
    const m = /^\/v1\/customer\/disputes\/([^/]+)(\/accept-claim|\/provide-evidence)?$/.exec(url.pathname);
    if (!m) return undefined;
    const d = disputes.get(decodeURIComponent(m[1]));
    if (!d) return notFound();
    if (method === 'GET' && !m[2]) return { status: 200, body: d };
    if (method !== 'POST' || !m[2]) return undefined;
    if (d.status !== 'WAITING_FOR_SELLER_RESPONSE') return unprocessable('DISPUTE_NOT_IN_VALID_STATE');
    if (m[2] === '/accept-claim') {
      resolve(d.dispute_id, 'ACCEPTED');
      return { status: 200, body: { links: [{ href: `/v1/customer/disputes/${d.dispute_id}`, rel: 'self', method: 'GET' }] } };
    }
    return evidence(d, contentType, raw);
  }

  return { disputes, provided, openDispute, resolve, route };
}
