// A local stand-in for Stripe's API, written from its public reference (https://docs.stripe.com/api):
// a real HTTP server on loopback that the official SDK is pointed at with api_base_url. It checks
// Bearer auth, parses form-encoded bodies, keeps Idempotency-Key semantics (same key and parameters:
// the saved response again, with Idempotent-Replayed; other parameters: 400 idempotency_error; the
// first still running: 409 idempotency_key_in_use), and records every request for the tests.
// Stripe's test payment methods decide outcomes (https://docs.stripe.com/testing); two tokens of
// its own (pm_standin_*) simulate what Stripe's test mode cannot: a lost answer and a 500.
// Money that moves leaves balance transactions (charges with Stripe's fee, refunds), which
// payOut() pays out as one payout, listed by GET /v1/payouts and GET /v1/balance_transactions?payout=.
// Vault and Forward's Forwarding API is in stripe-forwarding-stand-in.ts, disputes (with their
// events and evidence files) in stripe-stand-in-disputes.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseForm } from './form-encoding.js';
import { serveStandIn } from './stand-in-server.js';
import { createPayoutEndpoints } from './stripe-stand-in-payouts.js';
import { createForwardingEndpoint, type ForwardedRecord, type VaultedCard } from './stripe-forwarding-stand-in.js';
import { createDisputeEndpoints, type StandInDispute, type StandInEvent, type UploadedFile } from './stripe-stand-in-disputes.js';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  params: Record<string, unknown>;
}

type Answer = { status: number; body: Record<string, unknown> };
type Intent = Record<string, unknown> & { id: string; status: string; amount: number };
export type BalanceTransaction = Record<string, unknown> & {
  id: string; type: string; amount: number; fee: number; net: number; currency: string; source: string; payout: string | null; created: number;
};

/** Card tokens and what the issuer says (Stripe's test PaymentMethods). */
const DECLINES: Record<string, { code: string; decline_code: string; message: string }> = {
  pm_card_chargeDeclined: { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
  pm_card_chargeDeclinedInsufficientFunds: {
    code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.',
  },
  pm_card_chargeDeclinedStolenCard: { code: 'card_declined', decline_code: 'stolen_card', message: 'Your card was declined.' },
  // Stripe's test token of the same generic decline: a tok_… that other providers' stand-ins take as a card token.
  tok_chargeDeclined: { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
};

export interface StripeStandIn {
  baseUrl: string;
  requests: RecordedRequest[];
  intents: Map<string, Intent>;
  /** Charges by id, as PaymentIntents that took money made them. */
  charges: Map<string, Record<string, unknown>>;
  refunds: Map<string, Record<string, unknown>>;
  /** Payouts by id, sent (POST /v1/payouts) and automatic; a test makes the bank's answer and its webhook from them. */
  payouts: Map<string, Record<string, unknown> & { id: string; status: string }>;
  /** How long pm_standin_slowAnswer (and a payout to ba_standin_lostAnswer) holds back the first answer (the object is made at once). */
  slowAnswerMs: number;
  /** The customer finishes 3-D Secure on the issuer's page. */
  completeAuthentication(intentId: string): void;
  /** Balance transactions by id (charges, refunds, payouts), in the order they were made. */
  balanceTransactions: Map<string, BalanceTransaction>;
  /** Stripe's fee on a charge in Stripe's units: 1.4% rounded + 25 by default (a European card's price). */
  chargeFee: (amount: number) => number;
  /** The card Stripe's vault holds for each PaymentMethod that may be forwarded (Vault and Forward). */
  vaultedCards: Map<string, VaultedCard>;
  /** What the Forwarding API sent to destinations, card included: the stand-in's own record. */
  forwarded: ForwardedRecord[];
  /** The next N forwarded answers are lost: the destination is called, Stripe answers a 500. */
  lostForwardAnswers: { answers: number };
  /** Pays out every balance transaction not yet paid out, in one currency, as Stripe's automatic payouts do. */
  payOut(currency?: string, status?: 'paid' | 'pending' | 'failed'): Record<string, unknown>;
  /** Disputes by id, the events their changes made (oldest first), and the evidence files uploaded. */
  disputes: Map<string, StandInDispute>;
  events: StandInEvent[];
  files: UploadedFile[];
  /** The cardholder's bank disputes the PaymentIntent's charge: the events Stripe makes (created, funds_withdrawn). */
  openDispute(intentId: string, reason?: string, opts?: { inquiry?: boolean }): { dispute: StandInDispute; events: StandInEvent[] };
  /** The issuer decides a dispute: its events (closed, and funds_reinstated when won). */
  decideDispute(id: string, outcome: 'won' | 'lost'): StandInEvent[];
  /** A refund Stripe accepted fails later (the card was closed); Stripe then sends refund.updated / charge.refund.updated. */
  failRefund(refundId: string, reason?: string): Record<string, unknown>;
  close(): Promise<void>;
}

const error = (status: number, e: Record<string, unknown>): Answer => ({ status, body: { error: e } });

export async function startStripeStandIn(opts: { secretKeys: string[] }): Promise<StripeStandIn> {
  const requests: RecordedRequest[] = [];
  const intents = new Map<string, Intent>();
  const refunds = new Map<string, Record<string, unknown>>();
  const saved = new Map<string, { fingerprint: string; answer?: Answer }>();
  let seq = 0;
  const nextId = (prefix: string) => `${prefix}_standin${String(++seq).padStart(8, '0')}`;
  const networkTransactionId = () => `${Date.now() % 1e9}`.padStart(9, '0') + String(++seq).padStart(6, '0');
  const balanceTransactions = new Map<string, BalanceTransaction>();
  const charges = new Map<string, Record<string, unknown>>();
  const payouts = new Map<string, Record<string, unknown> & { id: string; created: number; status: string }>();
  // Payouts the merchant sends (POST /v1/payouts), beside the automatic ones payOut() makes.
  const payoutEndpoints = createPayoutEndpoints({ nextId, payouts });
  const now = () => Math.floor(Date.now() / 1000);
  const vaultedCards = new Map<string, VaultedCard>();
  const forwarded: ForwardedRecord[] = [];
  const lostForwardAnswers = { answers: 0 };
  const forward = createForwardingEndpoint({ cards: vaultedCards, forwarded, nextId, lose: lostForwardAnswers });

  function balance(type: string, amount: number, fee: number, currency: string, source: string, category = type): BalanceTransaction {
    const bt: BalanceTransaction = {
      id: nextId('txn'), object: 'balance_transaction', type, amount, fee, net: amount - fee, currency, source,
      payout: null, created: now(), description: null, status: 'available', reporting_category: category,
    };
    balanceTransactions.set(bt.id, bt);
    return bt;
  }
  const disputes = createDisputeEndpoints({ nextId, now, charges, intents, balance });

  /** A PaymentIntent that took money: its charge and the charge's balance transaction with Stripe's fee. */
  function charged(pi: Intent): void {
    const charge = {
      id: nextId('ch'), object: 'charge', amount: pi.amount_received, currency: pi.currency, payment_intent: pi.id, metadata: {},
      // Stripe's test cards are Visa cards; iin is absent, as for most accounts.
      // network_transaction_id: the scheme's id of the authorization (Visa's 15-digit Transaction ID).
      payment_method_details: {
        type: 'card',
        card: { brand: 'visa', network: 'visa', last4: '4242', funding: 'credit', country: 'US', network_transaction_id: networkTransactionId() },
      },
    };
    charges.set(charge.id, charge);
    pi.latest_charge = charge.id;
    const amount = Number(pi.amount_received);
    balance('charge', amount, standIn.chargeFee(amount), String(pi.currency), charge.id);
  }

  /** A list page as Stripe answers it, by id cursor (starting_after) in the order given. */
  function page<T extends { id: string }>(items: T[], q: Record<string, unknown>, url: string): Answer {
    const limit = Math.min(Number(q.limit ?? 10), 100);
    const after = q.starting_after ? items.findIndex((i) => i.id === q.starting_after) + 1 : 0;
    const data = items.slice(after, after + limit);
    return { status: 200, body: { object: 'list', data, has_more: after + limit < items.length, url } };
  }

  function listPayouts(q: Record<string, unknown>): Answer {
    const gte = Number((q.created as Record<string, string> | undefined)?.gte ?? 0);
    const list = [...payouts.values()].filter((po) => po.created >= gte).reverse(); // newest first
    return page(list, q, '/v1/payouts');
  }

  function listBalanceTransactions(q: Record<string, unknown>): Answer {
    const expand = Object.values((q.expand as Record<string, string> | string[] | undefined) ?? {});
    const list = [...balanceTransactions.values()].filter((bt) => !q.payout || bt.payout === q.payout).reverse()
      .map((bt) => (expand.includes('data.source')
        ? { ...bt, source: charges.get(bt.source) ?? refunds.get(bt.source) ?? payouts.get(bt.source) ?? disputes.disputes.get(bt.source) ?? bt.source }
        : bt));
    return page(list, q, '/v1/balance_transactions');
  }

  function createIntent(p: Record<string, unknown>, baseUrl: string): Answer {
    const amount = Number(p.amount);
    if (!Number.isInteger(amount) || amount < 1) return error(400, { type: 'invalid_request_error', code: 'parameter_invalid_integer', param: 'amount', message: 'Invalid integer' });
    const currency = String(p.currency ?? '');
    if (currency !== currency.toLowerCase() || currency.length !== 3) {
      return error(400, { type: 'invalid_request_error', param: 'currency', message: `Invalid currency: ${currency}` });
    }
    const apm = p.automatic_payment_methods as Record<string, string> | undefined;
    if (p.confirm === 'true' && !p.return_url && apm?.allow_redirects !== 'never') {
      return error(400, { type: 'invalid_request_error', message: 'This PaymentIntent is configured to accept payment methods enabled in your Dashboard. Because some of these payment methods might redirect your customer off of your page, you must provide a `return_url`.' });
    }
    const manual = p.capture_method === 'manual';
    const pm = String(p.payment_method ?? '');
    const pi: Intent = {
      id: nextId('pi'), object: 'payment_intent', amount, amount_received: 0, currency, capture_method: p.capture_method ?? 'automatic',
      payment_method: pm, metadata: p.metadata ?? {}, status: 'requires_payment_method', next_action: null,
      last_payment_error: null, return_url: p.return_url ?? null, cancellation_reason: null, livemode: false,
      created: Math.floor(Date.now() / 1000),
    };
    intents.set(pi.id, pi);
    const decline = DECLINES[pm];
    if (decline) {
      pi.last_payment_error = { type: 'card_error', ...decline };
      // A card error names the card's PaymentMethod, as Stripe's does (its test cards are Visa cards).
      const method = { id: pm, object: 'payment_method', type: 'card', card: { brand: 'visa', last4: '0002' } };
      return error(402, { type: 'card_error', ...decline, payment_intent: pi, payment_method: method });
    }
    if (pm === 'pm_card_authenticationRequired') {
      if (p.error_on_requires_action === 'true') {
        const e = { type: 'card_error', code: 'authentication_required', decline_code: 'authentication_required', message: 'Your card was declined. This transaction requires authentication.' };
        pi.last_payment_error = e;
        return error(402, { ...e, payment_intent: pi });
      }
      pi.status = 'requires_action';
      pi.next_action = { type: 'redirect_to_url', redirect_to_url: { url: `${baseUrl}/3ds/${pi.id}`, return_url: p.return_url } };
      return { status: 200, body: pi };
    }
    if (pm === 'pm_standin_serverError') return error(500, { type: 'api_error', message: 'An unknown error occurred' });
    if (pm !== 'pm_card_visa' && pm !== 'pm_standin_slowAnswer') {
      return error(400, { type: 'invalid_request_error', code: 'resource_missing', param: 'payment_method', message: `No such PaymentMethod: '${pm}'` });
    }
    pi.status = manual ? 'requires_capture' : 'succeeded';
    pi.amount_received = manual ? 0 : amount;
    if (!manual) charged(pi);
    // expand[]=latest_charge answers the charge itself in place of its id.
    const expand = Object.values((p.expand as Record<string, string> | string[] | undefined) ?? {});
    const charge = expand.includes('latest_charge') && typeof pi.latest_charge === 'string' ? charges.get(pi.latest_charge) : undefined;
    return { status: 200, body: charge ? { ...pi, latest_charge: charge } : pi };
  }

  function capture(pi: Intent, p: Record<string, unknown>): Answer {
    if (pi.status !== 'requires_capture') return unexpected(pi, 'capture');
    const amount = p.amount_to_capture === undefined ? pi.amount : Number(p.amount_to_capture);
    if (amount > pi.amount) return error(400, { type: 'invalid_request_error', param: 'amount_to_capture', message: 'Amount to capture exceeds the authorized amount' });
    Object.assign(pi, { status: 'succeeded', amount_received: amount });
    charged(pi);
    return { status: 200, body: pi };
  }

  function cancel(pi: Intent): Answer {
    if (pi.status === 'succeeded' || pi.status === 'canceled') return unexpected(pi, 'cancel');
    Object.assign(pi, { status: 'canceled', cancellation_reason: 'requested_by_customer', next_action: null });
    return { status: 200, body: pi };
  }

  function unexpected(pi: Intent, verb: string): Answer {
    return error(400, {
      type: 'invalid_request_error', code: 'payment_intent_unexpected_state', payment_intent: pi,
      message: `This PaymentIntent could not be ${verb === 'capture' ? 'captured' : 'canceled'} because it has a status of ${pi.status}.`,
    });
  }

  function refund(p: Record<string, unknown>): Answer {
    const pi = intents.get(String(p.payment_intent));
    if (!pi) return error(404, { type: 'invalid_request_error', code: 'resource_missing', param: 'payment_intent', message: `No such payment_intent: '${String(p.payment_intent)}'` });
    // A failed refund gave its amount back to the charge (https://docs.stripe.com/refunds#failed-refunds).
    const already = [...refunds.values()].filter((r) => r.payment_intent === pi.id && r.status !== 'failed')
      .reduce((t, r) => t + Number(r.amount), 0);
    const amount = p.amount === undefined ? Number(pi.amount_received) - already : Number(p.amount);
    if (already >= Number(pi.amount_received)) return error(400, { type: 'invalid_request_error', code: 'charge_already_refunded', message: 'Charge has already been refunded.' });
    if (amount + already > Number(pi.amount_received)) {
      return error(400, { type: 'invalid_request_error', param: 'amount', message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${Number(pi.amount_received) - already})` });
    }
    const r = { id: nextId('re'), object: 'refund', amount, currency: pi.currency, payment_intent: pi.id, status: 'succeeded', metadata: p.metadata ?? {} };
    refunds.set(r.id, r);
    balance('refund', -amount, 0, String(pi.currency), r.id);
    return { status: 200, body: r };
  }

  function search(query: string): Answer {
    const m = /^metadata\['([^']+)'\]:'((?:[^'\\]|\\.)*)'$/.exec(query);
    if (!m) return error(400, { type: 'invalid_request_error', param: 'query', message: 'Invalid search query' });
    const data = [...intents.values()].filter((pi) => (pi.metadata as Record<string, string>)[m[1]] === m[2].replace(/\\'/g, "'"));
    return { status: 200, body: { object: 'search_result', data, has_more: false, next_page: null, url: '/v1/payment_intents/search' } };
  }

  function route(method: string, path: string, p: Record<string, unknown>, q: URLSearchParams, baseUrl: string): Answer {
    if (method === 'GET' && path === '/v1/balance') {
      return { status: 200, body: { object: 'balance', livemode: false, available: [{ amount: 0, currency: 'eur' }], pending: [{ amount: 0, currency: 'eur' }] } };
    }
    if (method === 'GET' && path === '/v1/payouts') return listPayouts(p);
    const payout = payoutEndpoints.route(method, path, p);
    if (payout) return payout;
    if (method === 'GET' && path === '/v1/balance_transactions') return listBalanceTransactions(p);
    if (method === 'POST' && path === '/v1/payment_intents') return createIntent(p, baseUrl);
    if (method === 'GET' && path === '/v1/payment_intents/search') return search(q.get('query') ?? '');
    if (method === 'POST' && path === '/v1/refunds') return refund(p);
    const dispute = disputes.route(method, path, p);
    if (dispute) return dispute;
    const m = /^\/v1\/payment_intents\/([^/]+)(\/capture|\/cancel)?$/.exec(path);
    const pi = m && intents.get(m[1]);
    if (m && !pi) return error(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such payment_intent: '${m[1]}'` });
    if (pi && method === 'GET' && !m![2]) return { status: 200, body: pi };
    if (pi && method === 'POST' && m![2] === '/capture') return capture(pi, p);
    if (pi && method === 'POST' && m![2] === '/cancel') return cancel(pi);
    return error(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` });
  }

  /** Stripe keeps the answer of each key that started executing; 400 validation errors before that are not saved. */
  async function idempotent(req: RecordedRequest, key: string, run: () => Answer | Promise<Answer>): Promise<Answer & { replayed?: boolean }> {
    const fingerprint = `${req.method} ${req.path} ${JSON.stringify(req.params)}`;
    const prior = saved.get(key);
    if (prior) {
      if (prior.fingerprint !== fingerprint) {
        return error(400, { type: 'idempotency_error', message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.` });
      }
      if (!prior.answer) return error(409, { type: 'invalid_request_error', code: 'idempotency_key_in_use', message: 'There is currently another in-progress request using this Idempotency Key.' });
      return { ...prior.answer, replayed: true };
    }
    const slot: { fingerprint: string; answer?: Answer } = { fingerprint };
    saved.set(key, slot);
    const answer = await run();
    if (answer.status === 400 && (answer.body.error as { type: string }).type === 'invalid_request_error' && !(answer.body.error as { payment_intent?: unknown }).payment_intent) {
      saved.delete(key);
      return answer;
    }
    if (req.params.payment_method === 'pm_standin_slowAnswer' || payoutEndpoints.isSlow(req.params)) await sleep(standIn.slowAnswerMs);
    slot.answer = answer;
    return answer;
  }

  async function handle(req: IncomingMessage, res: ServerResponse, body: string, baseUrl: string): Promise<void> {
    const url = new URL(req.url ?? '/', baseUrl);
    const params = req.method === 'POST' ? parseForm(body) : parseForm(url.searchParams.toString());
    const rec: RecordedRequest = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body, params };
    requests.push(rec);
    const send = (a: Answer & { replayed?: boolean }) => {
      res.writeHead(a.status, {
        'content-type': 'application/json', 'request-id': `req_standin${requests.length}`,
        ...(a.replayed && { 'idempotent-replayed': 'true' }),
      });
      res.end(JSON.stringify(a.body));
    };
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    if (!auth || !opts.secretKeys.includes(auth[1])) {
      return send(error(401, { type: 'invalid_request_error', message: `Invalid API Key provided: ${(auth?.[1] ?? '').slice(0, 8)}****` }));
    }
    const key = req.headers['idempotency-key'];
    const run = () => {
      if (rec.method === 'POST' && rec.path === '/v1/forwarding/requests') return forward(params);
      if (rec.method === 'POST' && rec.path === '/v1/files') return disputes.upload(req.headers['content-type'] ?? '', body);
      return route(rec.method, rec.path, params, url.searchParams, baseUrl);
    };
    send(typeof key === 'string' && rec.method === 'POST' ? await idempotent(rec, `${auth[1]} ${key}`, run) : await run());
  }

  const server = await serveStandIn(handle, (err) => ({ error: { type: 'api_error', message: String(err) } }));
  const standIn: StripeStandIn = {
    baseUrl: server.baseUrl,
    requests,
    intents,
    charges,
    refunds,
    payouts,
    slowAnswerMs: 3_000,
    balanceTransactions,
    vaultedCards,
    forwarded,
    lostForwardAnswers,
    chargeFee: (amount) => Math.round(amount * 0.014) + 25,
    disputes: disputes.disputes,
    events: disputes.events,
    files: disputes.files,
    openDispute: disputes.openDispute,
    decideDispute: disputes.decide,
    completeAuthentication(intentId) {
      const pi = intents.get(intentId)!;
      const manual = pi.capture_method === 'manual';
      Object.assign(pi, { status: manual ? 'requires_capture' : 'succeeded', next_action: null, amount_received: manual ? 0 : pi.amount });
      if (!manual) charged(pi);
    },
    payOut(currency = 'eur', status = 'paid') {
      const due = [...balanceTransactions.values()].filter((bt) => bt.payout === null && bt.type !== 'payout' && bt.currency === currency);
      const amount = due.reduce((t, bt) => t + bt.net, 0);
      const po = {
        id: nextId('po'), object: 'payout', amount, currency, status, created: now(), arrival_date: now() + 86_400,
        automatic: true, destination: 'ba_standin', method: 'standard', type: 'bank_account',
      };
      payouts.set(po.id, po);
      for (const bt of due) bt.payout = po.id;
      balance('payout', -amount, 0, currency, po.id);
      [...balanceTransactions.values()].at(-1)!.payout = po.id;
      return po;
    },
    failRefund(refundId, reason = 'expired_or_canceled_card') {
      const r = refunds.get(refundId)!;
      if (r.status !== 'failed') {
        // Stripe returns the amount to the balance with a refund_failure balance transaction.
        balance('refund_failure', Number(r.amount), 0, String(r.currency), refundId);
        r.failure_balance_transaction = [...balanceTransactions.keys()].at(-1);
      }
      return Object.assign(r, { status: 'failed', failure_reason: reason });
    },
    close: server.close,
  };
  return standIn;
}
