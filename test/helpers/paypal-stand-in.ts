// A local stand-in for PayPal's REST APIs, written from its public reference
// (https://developer.paypal.com/api/rest/): a real HTTP server on loopback that the official
// @paypal/paypal-server-sdk is pointed at with api_base_url. It grants OAuth tokens for its client
// ids and secrets (POST /v1/oauth2/token, Basic auth), checks the bearer token on every other call,
// keeps PayPal-Request-Id semantics (a request id seen before: the first answer again), and answers
// Orders v2 (create, get, capture, authorize) and Payments v2 (capture and void of an
// authorization, refund of a capture) as the reference shows them, snake_case. The customer's
// approval on PayPal's page is approve(); declineFunding() makes the next completion of an order
// fail with INSTRUMENT_DECLINED. POST /v1/notifications/verify-webhook-signature answers SUCCESS
// only for a delivery signedEvent() made for that webhook id (the stand-in's secret stands in for
// PayPal's certificate, and a SHA-256 of the event for its CRC32). Every request is recorded.
// Customer disputes are in paypal-stand-in-disputes.ts.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { serveStandIn } from './stand-in-server.js';
import { createPayPalDisputeEndpoints, type ProvidedEvidence, type StandInPayPalDispute } from './paypal-stand-in-disputes.js';

export interface RecordedPayPalRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, any>;
  /** When it arrived (Date.now()). */
  at: number;
}

type Answer = { status: number; body: Record<string, unknown> };
type Money = { currency_code: string; value: string };

export interface StandInOrder {
  id: string;
  intent: 'CAPTURE' | 'AUTHORIZE';
  status: string;
  purchase_units: Array<{ reference_id?: string; custom_id?: string; amount: Money; payments?: Record<string, any[]> }>;
  payment_source: Record<string, unknown>;
  links: Array<{ href: string; rel: string; method: string }>;
  create_time: string;
}

export interface PayPalStandIn {
  baseUrl: string;
  requests: RecordedPayPalRequest[];
  orders: Map<string, StandInOrder>;
  /** The customer approves the order on PayPal's page. */
  approve(orderId: string): StandInOrder;
  /** The next completion of this order fails as PayPal's funding source declined it. */
  declineFunding(orderId: string): void;
  /** Orders created for these attempt ids (custom_id) or amounts (`value`) are answered only after `slowAnswerMs` (made at once). */
  slowAttempts: Set<string>;
  slowAmounts: Set<string>;
  slowAnswerMs: number;
  /** Customer disputes by id, and what provide-evidence received. */
  disputes: Map<string, StandInPayPalDispute>;
  providedEvidence: ProvidedEvidence[];
  /** The buyer disputes a captured order (a chargeback waiting for the seller). */
  openDispute(orderId: string, reason?: string): StandInPayPalDispute;
  /** PayPal resolves a dispute with an outcome code (RESOLVED_SELLER_FAVOUR, RESOLVED_BUYER_FAVOUR, …). */
  resolveDispute(disputeId: string, outcome: string): StandInPayPalDispute;
  close(): Promise<void>;
}

const WEBHOOK_SECRET = randomBytes(32).toString('hex');
const digest = (text: string) => createHash('sha256').update(text).digest('hex');
const signatureOf = (id: string, time: string, webhookId: string, body: string) =>
  createHmac('sha256', WEBHOOK_SECRET).update(`${id}|${time}|${webhookId}|${digest(body)}`).digest('base64');

const unprocessable = (issue: string, description = issue): Answer => ({
  status: 422,
  body: { name: 'UNPROCESSABLE_ENTITY', message: 'The requested action could not be performed.', debug_id: 'standin', details: [{ issue, description }] },
});
const notFound = (): Answer => ({
  status: 404, body: { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.', debug_id: 'standin', details: [{ issue: 'INVALID_RESOURCE_ID' }] },
});

const cents = (v: string) => Math.round(Number(v) * 100);
const value = (n: number, like: string) => (like.includes('.') ? (n / 100).toFixed(2) : String(n / 100));

export async function startPayPalStandIn(opts: { clients: Record<string, string>; webhookIds: Record<string, string> }): Promise<PayPalStandIn> {
  const requests: RecordedPayPalRequest[] = [];
  const orders = new Map<string, StandInOrder>();
  const tokens = new Map<string, string>();
  const saved = new Map<string, Answer>();
  const declining = new Set<string>();
  const authorizations = new Map<string, { orderId: string; auth: Record<string, any> }>();
  const captures = new Map<string, { orderId: string; capture: Record<string, any> }>();
  let seq = 0;
  const idOf = (prefix: string) => `${prefix}${String(++seq).padStart(14, '0')}`;

  function createOrder(b: Record<string, any>, baseUrl: string): Answer {
    const unit = b.purchase_units?.[0];
    if (b.intent !== 'CAPTURE' && b.intent !== 'AUTHORIZE') return { status: 400, body: { name: 'INVALID_REQUEST', details: [{ issue: 'INVALID_PARAMETER_VALUE' }] } };
    if (!unit?.amount?.currency_code || !/^\d+(\.\d{2})?$/.test(unit.amount.value ?? '')) return unprocessable('DECIMAL_PRECISION');
    if (unit.amount.currency_code === 'RUB') return unprocessable('CURRENCY_NOT_SUPPORTED');
    const id = idOf('5O');
    const order: StandInOrder = {
      id, intent: b.intent, status: 'PAYER_ACTION_REQUIRED',
      purchase_units: [{ reference_id: unit.reference_id, custom_id: unit.custom_id, amount: unit.amount }],
      payment_source: { paypal: {} },
      links: [
        { href: `${baseUrl}/v2/checkout/orders/${id}`, rel: 'self', method: 'GET' },
        { href: `${baseUrl}/checkoutnow?token=${id}`, rel: 'payer-action', method: 'GET' },
      ],
      create_time: new Date().toISOString(),
    };
    orders.set(id, order);
    return { status: 200, body: order as unknown as Record<string, unknown> };
  }

  function complete(order: StandInOrder, how: 'capture' | 'authorize'): Answer {
    if (order.status === 'COMPLETED') return unprocessable(how === 'capture' ? 'ORDER_ALREADY_CAPTURED' : 'ORDER_ALREADY_AUTHORIZED');
    if (order.status !== 'APPROVED') return unprocessable('ORDER_NOT_APPROVED');
    if ((how === 'capture') !== (order.intent === 'CAPTURE')) return unprocessable('ACTION_DOES_NOT_MATCH_INTENT');
    if (declining.delete(order.id)) return unprocessable('INSTRUMENT_DECLINED');
    const unit = order.purchase_units[0];
    const related = { related_ids: { order_id: order.id } };
    if (how === 'capture') {
      const capture = { id: idOf('CAP'), status: 'COMPLETED', amount: unit.amount, final_capture: true, custom_id: unit.custom_id, supplementary_data: related, create_time: new Date().toISOString() };
      unit.payments = { captures: [capture] };
      captures.set(capture.id, { orderId: order.id, capture });
    } else {
      const auth = { id: idOf('AUTH'), status: 'CREATED', amount: unit.amount, custom_id: unit.custom_id, supplementary_data: related, create_time: new Date().toISOString() };
      unit.payments = { authorizations: [auth] };
      authorizations.set(auth.id, { orderId: order.id, auth });
    }
    order.status = 'COMPLETED';
    return { status: 201, body: order as unknown as Record<string, unknown> };
  }

  function captureAuthorization(id: string, b: Record<string, any>): Answer {
    const found = authorizations.get(id);
    if (!found) return notFound();
    const { auth, orderId } = found;
    if (auth.status === 'VOIDED') return unprocessable('AUTHORIZATION_VOIDED');
    if (auth.status !== 'CREATED') return unprocessable('AUTHORIZATION_ALREADY_CAPTURED');
    const amount: Money = b.amount ?? auth.amount;
    if (cents(amount.value) > cents(auth.amount.value)) return unprocessable('MAX_CAPTURE_AMOUNT_EXCEEDED');
    auth.status = cents(amount.value) === cents(auth.amount.value) || b.final_capture ? 'CAPTURED' : 'PARTIALLY_CAPTURED';
    const capture = { id: idOf('CAP'), status: 'COMPLETED', amount, final_capture: b.final_capture ?? true, custom_id: auth.custom_id, create_time: new Date().toISOString() };
    const unit = orders.get(orderId)!.purchase_units[0];
    unit.payments = { ...unit.payments, captures: [...(unit.payments?.captures ?? []), capture] };
    captures.set(capture.id, { orderId, capture });
    return { status: 201, body: capture };
  }

  function refund(id: string, b: Record<string, any>): Answer {
    const found = captures.get(id);
    if (!found) return notFound();
    const { capture, orderId } = found;
    const unit = orders.get(orderId)!.purchase_units[0];
    const refunded = (unit.payments?.refunds ?? []).filter((r) => r.capture_id === id).reduce((s, r) => s + cents(r.amount.value), 0);
    const amount: Money = b.amount ?? { ...capture.amount, value: value(cents(capture.amount.value) - refunded, capture.amount.value) };
    const left = cents(capture.amount.value) - refunded;
    if (left === 0) return unprocessable('CAPTURE_FULLY_REFUNDED');
    if (cents(amount.value) > left) return unprocessable('REFUND_AMOUNT_EXCEEDED');
    const r = { id: idOf('REF'), status: 'COMPLETED', amount, custom_id: b.custom_id, capture_id: id, create_time: new Date().toISOString() };
    unit.payments = { ...unit.payments, refunds: [...(unit.payments?.refunds ?? []), r] };
    capture.status = cents(amount.value) === left ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    const { capture_id: _c, ...shown } = r;
    return { status: 201, body: shown };
  }

  function verify(b: Record<string, any>, clientId: string): Answer {
    const ok = opts.webhookIds[clientId] === b.webhook_id && b.auth_algo === 'SHA256withRSA'
      && b.transmission_sig === signatureOf(b.transmission_id, b.transmission_time, b.webhook_id, JSON.stringify(b.webhook_event));
    return { status: 200, body: { verification_status: ok ? 'SUCCESS' : 'FAILURE' } };
  }

  function route(method: string, path: string, b: Record<string, any>, clientId: string, baseUrl: string): Answer {
    if (method === 'POST' && path === '/v2/checkout/orders') return createOrder(b, baseUrl);
    if (method === 'POST' && path === '/v1/notifications/verify-webhook-signature') return verify(b, clientId);
    let m = /^\/v2\/checkout\/orders\/([^/]+)(?:\/(capture|authorize))?$/.exec(path);
    if (m) {
      const order = orders.get(decodeURIComponent(m[1]));
      if (!order) return notFound();
      if (method === 'GET' && !m[2]) return { status: 200, body: order as unknown as Record<string, unknown> };
      if (method === 'POST' && m[2]) return complete(order, m[2] as 'capture' | 'authorize');
    }
    m = /^\/v2\/payments\/authorizations\/([^/]+)\/(capture|void)$/.exec(path);
    if (m && method === 'POST') {
      if (m[2] === 'capture') return captureAuthorization(m[1], b);
      const found = authorizations.get(m[1]);
      if (!found) return notFound();
      if (found.auth.status !== 'CREATED') return unprocessable('PREVIOUSLY_VOIDED');
      found.auth.status = 'VOIDED';
      return { status: 200, body: found.auth };
    }
    m = /^\/v2\/payments\/captures\/([^/]+)\/refund$/.exec(path);
    if (m && method === 'POST') return refund(m[1], b);
    return notFound();
  }

  function token(req: IncomingMessage): Answer {
    const [id, secret] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString().split(':');
    if (!id || opts.clients[id] !== secret) return { status: 401, body: { error: 'invalid_client', error_description: 'Client Authentication failed' } };
    const accessToken = `A21AA${randomBytes(16).toString('hex')}`;
    tokens.set(accessToken, id);
    return { status: 200, body: { scope: 'https://uri.paypal.com/services/payments/payment', access_token: accessToken, token_type: 'Bearer', app_id: 'APP-standin', expires_in: 32400, nonce: 'standin' } };
  }

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string, baseUrl: string): Promise<void> {
    const url = new URL(req.url ?? '/', baseUrl);
    const path = url.pathname;
    let body: Record<string, any> = {};
    try {
      body = raw && !raw.startsWith('grant_type') ? JSON.parse(raw) as Record<string, any> : {};
    } catch {
      body = {};
    }
    const rec: RecordedPayPalRequest = { method: req.method ?? '', path, headers: req.headers, body, at: Date.now() };
    requests.push(rec);
    const send = (a: Answer) => {
      res.writeHead(a.status, { 'content-type': 'application/json', 'paypal-debug-id': `standin${requests.length}` });
      res.end(JSON.stringify(a.body));
    };
    if (rec.method === 'POST' && path === '/v1/oauth2/token') return send(token(req));
    const clientId = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!clientId) return send({ status: 401, body: { name: 'AUTHENTICATION_FAILURE', message: 'Authentication failed due to invalid authentication credentials.' } });
    const dispute = disputeEndpoints.route(rec.method, url, req.headers['content-type'] ?? '', raw);
    if (dispute) return send(dispute);
    const requestId = req.headers['paypal-request-id'];
    if (rec.method !== 'POST' || typeof requestId !== 'string') return send(route(rec.method, path, body, clientId, baseUrl));
    // PayPal answers a repeated request id with the first answer; a refused request is not kept.
    const key = `${clientId} ${path} ${requestId}`;
    const prior = saved.get(key);
    if (prior) return send(prior);
    const answer = route(rec.method, path, body, clientId, baseUrl);
    if (answer.status < 400) saved.set(key, JSON.parse(JSON.stringify(answer)) as Answer);
    const unit = path === '/v2/checkout/orders' ? body.purchase_units?.[0] : undefined;
    if (unit && (standIn.slowAttempts.has(unit.custom_id) || standIn.slowAmounts.has(unit.amount?.value))) await sleep(standIn.slowAnswerMs);
    send(answer);
  }

  const disputeEndpoints = createPayPalDisputeEndpoints(orders);
  const server = await serveStandIn(handle, () => ({ name: 'INTERNAL_SERVER_ERROR', message: 'An internal server error occurred.', debug_id: 'standin' }));
  const standIn: PayPalStandIn = {
    baseUrl: server.baseUrl,
    slowAttempts: new Set(),
    slowAmounts: new Set(),
    slowAnswerMs: 1_200,
    requests,
    orders,
    approve(orderId) {
      const o = orders.get(orderId)!;
      if (o.status === 'PAYER_ACTION_REQUIRED') o.status = 'APPROVED';
      return o;
    },
    declineFunding: (orderId) => void declining.add(orderId),
    disputes: disputeEndpoints.disputes,
    providedEvidence: disputeEndpoints.provided,
    openDispute: disputeEndpoints.openDispute,
    resolveDispute: disputeEndpoints.resolve,
    close: server.close,
  };
  return standIn;
}

let eventSeq = 0;

/** A webhook as PayPal posts it (`{id, event_type, create_time, resource, …}`) with the PAYPAL-TRANSMISSION headers for `webhookId`. */
export function signedEvent(eventType: string, resource: Record<string, unknown>, webhookId: string): { eventId: string; body: string; headers: Record<string, string> } {
  const eventId = `WH-STANDIN-${Date.now()}-${++eventSeq}`;
  const body = JSON.stringify({
    id: eventId, event_version: '1.0', create_time: new Date().toISOString(), resource_type: 'checkout-order',
    resource_version: '2.0', event_type: eventType, summary: eventType, resource,
  });
  const transmissionId = randomBytes(16).toString('hex');
  const time = new Date().toISOString();
  return {
    eventId, body,
    headers: {
      'content-type': 'application/json', 'paypal-transmission-id': transmissionId, 'paypal-transmission-time': time,
      'paypal-transmission-sig': signatureOf(transmissionId, time, webhookId, body),
      'paypal-cert-url': 'https://api-m.paypal.com/v1/notifications/certs/CERT-standin', 'paypal-auth-algo': 'SHA256withRSA',
    },
  };
}
