// A local stand-in for Mollie's Payments API v2, written from its public reference
// (https://docs.mollie.com/reference): a real HTTP server on loopback that the official
// @mollie/api-client is pointed at with api_base_url (its apiEndpoint, `${baseUrl}/v2/`). It checks
// the API key (`Authorization: Bearer test_…|live_…`), keeps each key's payments apart (another
// key's payment is a 404, as at Mollie), keeps Idempotency-Key semantics (a key seen before: the
// first response again), answers POST /v2/payments (`open` with a `_links.checkout` page),
// GET /v2/payments/{id} (`embed=refunds`), GET /v2/payments (newest first), POST
// /v2/payments/{id}/refunds, and the settlements with their payments, refunds and chargebacks, in Mollie's
// HAL+JSON and error shapes; and records every request. Chargebacks (read only at Mollie) are
// embedded in a payment (`embed=chargebacks`) and listed by GET /v2/chargebacks, newest first;
// chargeBack and reverseChargeback make and reverse them as the bank would. Tests move payments and refunds on as the
// customer or Mollie would (setStatus, setRefundStatus), queue an error for the next payment, and
// hold back the answer to a payment of …03 (slowAnswerMs).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { serveStandIn } from './stand-in-server.js';

export interface RecordedMollieRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** When it arrived (Date.now()). */
  at: number;
}

type Amount = { currency: string; value: string };
type Answer = { status: number; body: Record<string, unknown> };

export interface StandInMolliePayment {
  resource: 'payment'; id: string; mode: string; status: string; method: string | null; amount: Amount;
  amountRefunded: Amount; description: string; redirectUrl: string; webhookUrl?: string;
  metadata: unknown; createdAt: string; expiresAt: string; profileId: string;
  details?: { failureReason?: string };
  _links: Record<string, { href: string; type: string } | undefined>;
}

export interface StandInMollieRefund {
  resource: 'refund'; id: string; paymentId: string; status: string; amount: Amount; description: string;
  metadata: unknown; createdAt: string; settlementAmount: Amount;
}

export interface StandInSettlement {
  resource: 'settlement'; id: string; reference: string; status: string; createdAt: string; settledAt: string | null; amount: Amount;
  periods: Record<string, unknown>; paymentIds: string[]; refundIds: string[]; chargebacks: StandInMollieChargeback[];
}

/** A chargeback as GET /v2/settlements/{id}/chargebacks lists it (settlementAmount negative: taken back). */
export interface StandInMollieChargeback {
  resource: 'chargeback'; id: string; paymentId: string; amount: Amount; settlementAmount: Amount; createdAt: string;
}

export interface MollieStandIn {
  baseUrl: string;
  requests: RecordedMollieRequest[];
  payments: Map<string, StandInMolliePayment>;
  refunds: Map<string, StandInMollieRefund>;
  settlements: StandInSettlement[];
  /** The customer (or the bank) moves a payment on: paid, failed, canceled, expired. */
  setStatus(paymentId: string, status: string, failureReason?: string): StandInMolliePayment;
  setRefundStatus(refundId: string, status: string): StandInMollieRefund;
  /** The customer's bank charges a paid payment back (its whole amount; a SEPA reason code). */
  chargeBack(paymentId: string, reasonCode?: string): Record<string, unknown> & { id: string };
  /** The bank reverses a chargeback: Mollie sets its reversedAt and credits the amount back. */
  reverseChargeback(chargebackId: string): Record<string, unknown>;
  /**
   * How long the answer to a payment whose amount ends in .03 is held back (the payment is made at
   * once and its key's answer kept): a client whose deadline passes first has lost the answer.
   */
  slowAnswerMs: number;
  /** The next POST /v2/payments is answered with this HTTP error (and field, for a 422). */
  failNextPayment(status: number, field?: string): void;
  /** Settles the listed payments, refunds and chargebacks (of these payments' amounts) in one paid-out settlement under `apiKey`. */
  settle(apiKey: string, paymentIds: string[], refundIds: string[], costs: Amount, chargebacks?: Array<{ paymentId: string; amount: Amount }>): StandInSettlement;
  close(): Promise<void>;
}

const ERROR_TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized Request', 404: 'Not Found', 422: 'Unprocessable Entity', 429: 'Too Many Requests',
  500: 'Internal Server Error', 503: 'Service Unavailable',
};

/** Mollie's error body: `{status, title, detail, field?, _links.documentation}`. */
export function mollieError(status: number, detail: string, field?: string): Answer {
  return {
    status,
    body: {
      status, title: ERROR_TITLES[status] ?? 'Error', detail, ...(field && { field }),
      _links: { documentation: { href: 'https://docs.mollie.com/overview/handling-errors', type: 'text/html' } },
    },
  };
}

const AMOUNT = /^\d+(\.\d{2})?$/;
const minor = (a: Amount) => Math.round(Number(a.value) * 100);
const asAmount = (currency: string, cents: number): Amount => ({ currency, value: (cents / 100).toFixed(2) });

export async function startMollieStandIn(opts: { apiKeys: string[] }): Promise<MollieStandIn> {
  const requests: RecordedMollieRequest[] = [];
  const payments = new Map<string, StandInMolliePayment>();
  const refunds = new Map<string, StandInMollieRefund>();
  const chargebacks = new Map<string, Record<string, unknown> & { id: string; paymentId: string }>();
  const owners = new Map<string, string>();
  const settlements: StandInSettlement[] = [];
  const saved = new Map<string, Answer>();
  const failures: Answer[] = [];
  let seq = 0;
  const idOf = (prefix: string) => `${prefix}_standin${String(++seq).padStart(8, '0')}`;

  function createPayment(key: string, b: Record<string, unknown>, baseUrl: string): Answer {
    const failure = failures.shift();
    if (failure) return failure;
    const amount = b.amount as Amount | undefined;
    if (!amount || typeof amount.currency !== 'string' || !AMOUNT.test(String(amount.value))) {
      return mollieError(422, 'The amount is invalid', 'amount');
    }
    if (typeof b.redirectUrl !== 'string') return mollieError(422, 'The redirect URL is required', 'redirectUrl');
    if (typeof b.description !== 'string') return mollieError(422, 'The description is required', 'description');
    const method = Array.isArray(b.method) ? null : (b.method as string | undefined) ?? null;
    const id = idOf('tr');
    const p: StandInMolliePayment = {
      resource: 'payment', id, mode: key.startsWith('live_') ? 'live' : 'test', status: 'open', method, amount,
      amountRefunded: { currency: amount.currency, value: '0.00' }, description: b.description, redirectUrl: b.redirectUrl,
      ...(typeof b.webhookUrl === 'string' && { webhookUrl: b.webhookUrl }), metadata: b.metadata ?? null,
      createdAt: new Date().toISOString(), expiresAt: new Date(Date.now() + 15 * 60_000).toISOString(), profileId: 'pfl_standin',
      _links: {
        self: { href: `${baseUrl}/v2/payments/${id}`, type: 'application/hal+json' },
        checkout: { href: `${baseUrl}/checkout/select-issuer/${method ?? 'any'}/${id}`, type: 'text/html' },
      },
    };
    payments.set(id, p);
    owners.set(id, key);
    return { status: 201, body: { ...p } };
  }

  function showPayment(p: StandInMolliePayment, embed: string[]): Record<string, unknown> {
    const shown: Record<string, unknown> = { ...p };
    const of = <T extends { paymentId: string }>(all: Iterable<T>) => [...all].filter((x) => x.paymentId === p.id);
    if (embed.includes('refunds')) shown._embedded = { refunds: of(refunds.values()) };
    if (embed.includes('chargebacks')) shown._embedded = { ...(shown._embedded as object), chargebacks: of(chargebacks.values()) };
    return shown;
  }

  function createRefund(key: string, paymentId: string, b: Record<string, unknown>): Answer {
    const p = payments.get(paymentId);
    if (!p || owners.get(paymentId) !== key) return mollieError(404, `No payment exists with token ${paymentId}.`);
    const amount = b.amount as Amount | undefined;
    if (!amount || !AMOUNT.test(String(amount.value)) || amount.currency !== p.amount.currency) return mollieError(422, 'The amount is invalid', 'amount');
    if (p.status !== 'paid') return mollieError(422, 'The payment cannot be refunded', 'amount');
    const left = minor(p.amount) - minor(p.amountRefunded);
    if (minor(amount) > left) return mollieError(422, 'The refund amount is higher than the amount that is refundable for this payment', 'amount');
    p.amountRefunded = asAmount(p.amount.currency, minor(p.amountRefunded) + minor(amount));
    const r: StandInMollieRefund = {
      resource: 'refund', id: idOf('re'), paymentId, status: 'pending', amount, description: String(b.description ?? ''),
      metadata: b.metadata ?? null, createdAt: new Date().toISOString(), settlementAmount: asAmount(amount.currency, -minor(amount)),
    };
    refunds.set(r.id, r);
    owners.set(r.id, key);
    return { status: 201, body: { ...r } };
  }

  const list = (name: string, items: unknown[], baseUrl: string, path: string): Answer => ({
    status: 200,
    body: { count: items.length, _embedded: { [name]: items }, _links: { self: { href: `${baseUrl}${path}`, type: 'application/hal+json' }, previous: null, next: null } },
  });

  function route(key: string, method: string, path: string, query: URLSearchParams, body: Record<string, unknown>, baseUrl: string): Answer {
    const mine = (id: string) => owners.get(id) === key;
    if (method === 'POST' && path === '/v2/payments') return createPayment(key, body, baseUrl);
    if (method === 'GET' && path === '/v2/payments') {
      const own = [...payments.values()].filter((p) => mine(p.id)).reverse();
      return list('payments', own.slice(0, Number(query.get('limit') ?? 50)), baseUrl, path);
    }
    let m = /^\/v2\/payments\/([^/]+)$/.exec(path);
    if (method === 'GET' && m) {
      const p = payments.get(m[1]!);
      if (!p || !mine(p.id)) return mollieError(404, `No payment exists with token ${m[1]}.`);
      return { status: 200, body: showPayment(p, (query.get('embed') ?? '').split(',')) };
    }
    m = /^\/v2\/payments\/([^/]+)\/refunds$/.exec(path);
    if (method === 'POST' && m) return createRefund(key, m[1]!, body);
    if (method === 'GET' && path === '/v2/chargebacks') {
      return list('chargebacks', [...chargebacks.values()].filter((c) => mine(c.paymentId)).reverse(), baseUrl, path);
    }
    if (method === 'GET' && path === '/v2/settlements') {
      return list('settlements', settlements.filter((s) => mine(s.id)).reverse().map(({ paymentIds: _p, refundIds: _r, chargebacks: _c, ...s }) => s), baseUrl, path);
    }
    m = /^\/v2\/settlements\/([^/]+)\/(payments|refunds|chargebacks)$/.exec(path);
    if (method === 'GET' && m) {
      const s = settlements.find((x) => x.id === m![1] && mine(x.id));
      if (!s) return mollieError(404, `No settlement exists with token ${m[1]}.`);
      const items = m[2] === 'payments'
        ? s.paymentIds.map((id) => ({ ...payments.get(id)!, settlementAmount: payments.get(id)!.amount }))
        : m[2] === 'refunds' ? s.refundIds.map((id) => refunds.get(id)!) : s.chargebacks;
      return list(m[2]!, items, baseUrl, path);
    }
    return mollieError(404, 'The resource does not exist.');
  }

  const server = await serveStandIn(async (req, res, raw, baseUrl) => {
    const url = new URL(req.url ?? '/', baseUrl);
    let body: Record<string, unknown> = {};
    try {
      body = raw ? JSON.parse(raw) as Record<string, unknown> : {};
    } catch {
      return send(res, mollieError(400, 'The request body is not valid JSON'));
    }
    const rec: RecordedMollieRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body, at: Date.now() };
    requests.push(rec);
    const key = /^Bearer ((?:test|live)_\w+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!key || !opts.apiKeys.includes(key)) return send(res, mollieError(401, 'Missing authentication, or failed to authenticate'));
    const idem = req.headers['idempotency-key'];
    const run = () => route(key, rec.method, rec.path, url.searchParams, body, baseUrl);
    if (typeof idem === 'string' && rec.method === 'POST') {
      const slot = `${key} ${idem}`;
      const prior = saved.get(slot);
      const answer = prior ?? run();
      // Mollie keeps the answer of a key (server errors excepted, which the SDK repeats).
      if (answer.status < 500) saved.set(slot, answer);
      const slow = !prior && rec.path === '/v2/payments' && String((body.amount as Amount | undefined)?.value).endsWith('.03');
      if (slow) await sleep(standIn.slowAnswerMs);
      return send(res, answer);
    }
    return send(res, run());
  }, () => mollieError(500, 'The stand-in crashed').body);

  function send(res: ServerResponse, a: Answer): void {
    res.writeHead(a.status, { 'content-type': a.status < 300 ? 'application/hal+json' : 'application/problem+json' });
    res.end(JSON.stringify(a.body));
  }

  const standIn: MollieStandIn = {
    baseUrl: server.baseUrl, requests, payments, refunds, settlements, slowAnswerMs: 1_500,
    setStatus(paymentId, status, failureReason) {
      const p = payments.get(paymentId);
      if (!p) throw new Error(`no stand-in payment ${paymentId}`);
      p.status = status;
      if (failureReason) p.details = { failureReason };
      if (status !== 'open') delete p._links.checkout;
      return p;
    },
    chargeBack(paymentId, reasonCode = 'MD06') {
      const p = payments.get(paymentId)!;
      const c = {
        resource: 'chargeback', id: idOf('chb'), paymentId, amount: { ...p.amount }, settlementAmount: asAmount(p.amount.currency, -minor(p.amount)),
        createdAt: new Date().toISOString(), reversedAt: null, reason: { code: reasonCode, description: 'Disputed authorization' },
      };
      chargebacks.set(c.id, c);
      return c;
    },
    reverseChargeback(chargebackId) {
      return Object.assign(chargebacks.get(chargebackId)!, { reversedAt: new Date().toISOString() });
    },
    setRefundStatus(refundId, status) {
      const r = refunds.get(refundId);
      if (!r) throw new Error(`no stand-in refund ${refundId}`);
      r.status = status;
      return r;
    },
    failNextPayment(status, field) {
      failures.push(mollieError(status, `The stand-in answers ${status}`, field));
    },
    settle(apiKey, paymentIds, refundIds, costs, taken = []) {
      const now = new Date();
      const chargebacks = taken.map((c): StandInMollieChargeback => ({
        resource: 'chargeback', id: idOf('chb'), paymentId: c.paymentId, amount: c.amount,
        settlementAmount: asAmount(c.amount.currency, -minor(c.amount)), createdAt: now.toISOString(),
      }));
      const total = paymentIds.reduce((n, id) => n + minor(payments.get(id)!.amount), 0)
        - refundIds.reduce((n, id) => n + minor(refunds.get(id)!.amount), 0) - minor(costs)
        - chargebacks.reduce((n, c) => n + minor(c.amount), 0);
      const s: StandInSettlement = {
        resource: 'settlement', id: idOf('stl'), reference: `1234567.${String(seq).padStart(4, '0')}.01`, status: 'paidout',
        createdAt: now.toISOString(), settledAt: now.toISOString(), amount: asAmount(costs.currency, total),
        periods: { [now.getUTCFullYear()]: { [String(now.getUTCMonth() + 1).padStart(2, '0')]: {
          revenue: [], invoiceId: 'inv_standin',
          costs: [{ description: 'iDEAL', method: 'ideal', count: paymentIds.length, rate: { fixed: costs, variable: '0' }, amountNet: costs, amountVat: asAmount(costs.currency, 0), amountGross: costs }],
        } } },
        paymentIds, refundIds, chargebacks,
      };
      settlements.push(s);
      owners.set(s.id, apiKey);
      return s;
    },
    close: server.close,
  };
  return standIn;
}
