// A local stand-in for Checkout.com's unified payments API, written from its public reference
// (https://api-reference.checkout.com): a real HTTP server on loopback that the official
// checkout-sdk-node is pointed at with api_base_url (the SDK's `host`). It checks the secret key
// (`Authorization: Bearer sk_sbox_…` for the current platform's keys), reads JSON bodies, keeps
// Cko-Idempotency-Key semantics (a key seen before: the first response again; the first still
// running: 409), answers POST /payments (201 approved or declined with its response_code, 202
// Pending with a 3-D Secure redirect link), GET /payments?reference=, GET /payments/{id}, and the
// captures, voids and refunds of a payment (202 Accepted with an action_id), and records every
// request. Outcomes follow the card token: tok_standin_declined_<response_code>, tok_standin_3ds,
// tok_standin_slow (the answer held back), tok_standin_server_error, tok_standin_invalid (422
// token_invalid); any other tok_… or src_… is approved. signedEvent() builds a webhook signed
// with the account's signature key as Checkout.com signs it (Cko-Signature). Disputes and their
// evidence files are in checkout-stand-in-disputes.ts.
import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { RESPONSE_CODES } from '../../services/connectors/checkout/errors.js';
import { serveStandIn } from './stand-in-server.js';
import { createCheckoutDisputeEndpoints, type StandInCheckoutDispute, type UploadedCheckoutFile } from './checkout-stand-in-disputes.js';

export interface RecordedCheckoutRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

type Answer = { status: number; body: Record<string, unknown> };

export interface StandInCheckoutPayment {
  id: string; reference: string; amount: number; currency: string; status: string; approved: boolean;
  response_code?: string; response_summary?: string; metadata: Record<string, string>;
  captured: number; refunded: number; capture: boolean; created_on: string;
}

export interface CheckoutStandIn {
  baseUrl: string;
  requests: RecordedCheckoutRequest[];
  payments: Map<string, StandInCheckoutPayment>;
  /** Actions (captures, voids, refunds) by action_id. */
  actions: Map<string, Record<string, unknown>>;
  /** How long tok_standin_slow holds back the first answer (the payment is made at once). */
  slowAnswerMs: number;
  /** The customer finishes 3-D Secure on the issuer's page: the pending payment is authorized. */
  completeAuthentication(paymentId: string): StandInCheckoutPayment;
  /** Disputes by id, and the evidence files uploaded. */
  disputes: Map<string, StandInCheckoutDispute>;
  files: UploadedCheckoutFile[];
  /** The issuer disputes a payment: an evidence_required dispute (Checkout.com debits its amount). */
  openDispute(paymentId: string, category?: string): StandInCheckoutDispute;
  /** The dispute moves to Checkout.com's `status` (won, lost, canceled, …), its last_update now. */
  decideDispute(disputeId: string, status: string): StandInCheckoutDispute;
  /** A dispute webhook's `data` for the dispute as it stands. */
  disputeEventData(d: StandInCheckoutDispute): Record<string, unknown>;
  close(): Promise<void>;
}

const idOf = (prefix: string, n: number) => `${prefix}_standin${String(n).padStart(20, '0')}`;
const invalid = (...codes: string[]): Answer => ({
  status: 422, body: { request_id: 'req_standin', error_type: 'request_invalid', error_codes: codes },
});

/** What a payment's details show (GET /payments/{id} and the list). */
function details(p: StandInCheckoutPayment): Record<string, unknown> {
  const { captured: _c, refunded: _r, capture: _k, ...shown } = p;
  return { ...shown, source: { type: 'card' } };
}

export async function startCheckoutStandIn(opts: { secretKeys: string[] }): Promise<CheckoutStandIn> {
  const requests: RecordedCheckoutRequest[] = [];
  const payments = new Map<string, StandInCheckoutPayment>();
  const actions = new Map<string, Record<string, unknown>>();
  const saved = new Map<string, { answer?: Answer }>();
  let seq = 0;

  function createPayment(b: Record<string, unknown>, baseUrl: string): Answer {
    const source = (b.source ?? {}) as Record<string, string>;
    if (!source.type) return invalid('payment_source_required');
    if (!Number.isInteger(b.amount) || typeof b.currency !== 'string') return invalid('amount_invalid');
    if (!b.processing_channel_id) return invalid('processing_channel_id_required');
    // A raw card (a vault's forward): Checkout.com's validation of its fields, integers for the expiry.
    const card = source as Record<string, unknown>;
    if (source.type === 'card' && !/^\d{12,19}$/.test(String(card.number ?? ''))) return invalid('card_number_invalid');
    if (source.type === 'card' && !Number.isInteger(card.expiry_month)) return invalid('card_expiry_month_invalid');
    if (source.type === 'card' && !Number.isInteger(card.expiry_year)) return invalid('card_expiry_year_invalid');
    const token = source.token ?? source.id ?? '';
    if (token === 'tok_standin_server_error') return { status: 500, body: {} };
    if (token === 'tok_standin_invalid') return invalid('token_invalid');
    const p: StandInCheckoutPayment = {
      id: idOf('pay', ++seq), reference: String(b.reference ?? ''), amount: b.amount as number, currency: b.currency as string,
      status: 'Authorized', approved: true, response_code: '10000', response_summary: 'Approved',
      metadata: (b.metadata ?? {}) as Record<string, string>, captured: 0, refunded: 0, capture: b.capture !== false,
      created_on: new Date().toISOString(),
    };
    payments.set(p.id, p);
    const base = { id: p.id, action_id: idOf('act', ++seq), amount: p.amount, currency: p.currency, reference: p.reference };
    const code = /^tok_standin_declined_(\d{5})$/.exec(token)?.[1];
    const threeDs = (b['3ds'] as { enabled?: boolean } | undefined)?.enabled === true;
    if (code || (token === 'tok_standin_3ds' && !threeDs)) {
      const responseCode = code ?? '20154';
      Object.assign(p, { status: 'Declined', approved: false, response_code: responseCode, response_summary: RESPONSE_CODES[responseCode]?.message ?? 'Declined' });
      return { status: 201, body: { ...base, approved: false, status: 'Declined', response_code: responseCode, response_summary: p.response_summary } };
    }
    if (token === 'tok_standin_3ds') {
      Object.assign(p, { status: 'Pending', approved: false, response_code: undefined, response_summary: undefined });
      return { status: 202, body: { id: p.id, reference: p.reference, status: 'Pending', _links: { redirect: { href: `${baseUrl}/3ds/${p.id}` } } } };
    }
    if (p.capture) p.captured = p.amount;
    return { status: 201, body: { ...base, approved: true, status: 'Authorized', response_code: '10000', response_summary: 'Approved' } };
  }

  function act(kind: string, p: StandInCheckoutPayment | undefined, b: Record<string, unknown>): Answer {
    if (!p) return { status: 404, body: {} };
    const amount = (b.amount as number | undefined);
    if (kind === 'captures') {
      if (!p.approved || p.capture || p.status === 'Voided') return { status: 403, body: {} };
      if ((amount ?? p.amount) > p.amount - p.captured) return invalid('capture_value_greater_than_authorized');
      p.captured += amount ?? p.amount - p.captured;
      p.status = p.captured === p.amount ? 'Captured' : 'Partially Captured';
    }
    if (kind === 'voids') {
      if (!p.approved || p.captured > 0 || p.status === 'Voided') return { status: 403, body: {} };
      p.status = 'Voided';
    }
    if (kind === 'refunds') {
      if (p.captured === 0) return { status: 403, body: {} };
      if ((amount ?? p.captured - p.refunded) > p.captured - p.refunded) return invalid('refund_amount_exceeds_balance');
      p.refunded += amount ?? p.captured - p.refunded;
      p.status = p.refunded === p.captured ? 'Refunded' : 'Partially Refunded';
    }
    const action = { action_id: idOf('act', ++seq), reference: b.reference };
    actions.set(action.action_id, { ...action, kind, payment_id: p.id, amount });
    return { status: 202, body: { ...action, _links: { payment: { href: `/payments/${p.id}` } } } };
  }

  function route(method: string, path: string, query: URLSearchParams, b: Record<string, unknown>, baseUrl: string): Answer {
    if (method === 'POST' && path === '/payments') return createPayment(b, baseUrl);
    if (method === 'GET' && path === '/payments') {
      const ref = query.get('reference');
      if (!ref) return invalid('reference_required');
      const data = [...payments.values()].filter((p) => p.reference === ref).map(details);
      return { status: 200, body: { limit: Number(query.get('limit') ?? 10), skip: 0, total_count: data.length, data } };
    }
    const dispute = disputeEndpoints.route(method, path, query, b);
    if (dispute) return dispute;
    const m = /^\/payments\/([^/]+)(?:\/(captures|voids|refunds))?$/.exec(path);
    const p = m ? payments.get(decodeURIComponent(m[1])) : undefined;
    if (m && method === 'GET' && !m[2]) return p ? { status: 200, body: details(p) } : { status: 404, body: {} };
    if (m && method === 'POST' && m[2]) return act(m[2], p, b);
    return { status: 404, body: {} };
  }

  /** The first response of a key, again; 409 while the first still runs. 422s are not kept. */
  async function idempotent(key: string, rec: RecordedCheckoutRequest, run: () => Answer): Promise<Answer> {
    const prior = saved.get(key);
    if (prior) return prior.answer ?? { status: 409, body: {} };
    const slot: { answer?: Answer } = {};
    saved.set(key, slot);
    const answer = run();
    if (answer.status === 422) {
      saved.delete(key);
      return answer;
    }
    if ((rec.body.source as Record<string, string> | undefined)?.token === 'tok_standin_slow') await sleep(standIn.slowAnswerMs);
    slot.answer = answer;
    return answer;
  }

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string, baseUrl: string): Promise<void> {
    const url = new URL(req.url ?? '/', baseUrl);
    let body: Record<string, unknown> = {};
    try {
      body = raw ? JSON.parse(raw) as Record<string, unknown> : {};
    } catch {
      body = {};
    }
    const rec: RecordedCheckoutRequest = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body };
    requests.push(rec);
    const send = (a: Answer) => {
      res.writeHead(a.status, { 'content-type': 'application/json', 'cko-request-id': `req_standin${requests.length}`, 'cko-version': '1.0.0' });
      res.end(a.status === 404 || a.status === 403 || a.status === 409 || a.status === 204 ? '' : JSON.stringify(a.body));
    };
    const auth = /^(?:Bearer )?(.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!auth || !opts.secretKeys.includes(auth)) return send({ status: 401, body: {} });
    const key = req.headers['cko-idempotency-key'];
    const run = () => (rec.method === 'POST' && rec.path === '/files'
      ? disputeEndpoints.upload(req.headers['content-type'] ?? '', raw)
      : route(rec.method, rec.path, url.searchParams, body, baseUrl));
    send(typeof key === 'string' && rec.method === 'POST' ? await idempotent(`${auth} ${key}`, rec, run) : run());
  }

  const disputeEndpoints = createCheckoutDisputeEndpoints();
  const server = await serveStandIn(handle, () => ({}));
  const standIn: CheckoutStandIn = {
    baseUrl: server.baseUrl,
    requests,
    payments,
    actions,
    slowAnswerMs: 3_000,
    completeAuthentication(paymentId) {
      const p = payments.get(paymentId)!;
      Object.assign(p, { status: 'Authorized', approved: true, response_code: '10000', response_summary: 'Approved' });
      if (p.capture) p.captured = p.amount;
      return p;
    },
    disputes: disputeEndpoints.disputes,
    files: disputeEndpoints.files,
    openDispute: (paymentId, category) => disputeEndpoints.openDispute(payments.get(paymentId)!, category),
    decideDispute: disputeEndpoints.decide,
    disputeEventData: disputeEndpoints.eventData,
    close: server.close,
  };
  return standIn;
}

let eventSeq = 0;

/** A sandbox secret key of Checkout.com's current platform: sk_sbox_ and 27 base32 characters. */
export function sandboxKey(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let key = 'sk_sbox_';
  for (let i = 0; i < 27; i++) key += alphabet[Math.floor(Math.random() * alphabet.length)];
  return key;
}

/** A production secret key of Checkout.com's current platform: sk_ and 27 base32 characters. */
export function liveKey(): string {
  return sandboxKey().replace('sk_sbox_', 'sk_');
}

/** A webhook as Checkout.com posts it: `{id, type, version, created_on, data}`, signed with `signatureKey`. */
export function signedEvent(type: string, data: Record<string, unknown>, signatureKey: string): { eventId: string; body: string; headers: Record<string, string> } {
  const eventId = `evt_standin${Date.now()}${String(++eventSeq).padStart(6, '0')}`;
  const body = JSON.stringify({ id: eventId, type, version: '1.0.33', created_on: new Date().toISOString(), data });
  const signature = createHmac('sha256', signatureKey).update(body).digest('hex');
  return { eventId, body, headers: { 'content-type': 'application/json', 'cko-signature': signature } };
}
