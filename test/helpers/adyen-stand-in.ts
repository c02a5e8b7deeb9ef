// A local stand-in for Adyen's Checkout API, written from its public reference
// (https://docs.adyen.com/api-explorer/Checkout/latest): a real HTTP server on loopback that the
// official library is pointed at with api_base_url. It checks the X-API-Key, reads JSON bodies,
// keeps Idempotency-Key semantics (a key seen before: the first response again; the first still
// running: 422 errorCode 704 with Transient-Error: true), answers /payments, /payments/details,
// captures, cancels and refunds by pspReference (status "received") and /paymentMethods, and
// records every request. Outcomes follow the stored payment method id (standin_*), or, for
// Components' card data and raw card fields, Adyen's test convention of the holder name naming the
// refusal reason; a raw card number must pass its check digit (else errorCode 101).
// signedNotification() builds a standard notification signed with the account's HMAC key; the
// Disputes API and dispute notification items are in adyen-stand-in-disputes.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import adyen from '@adyen/api-library';
import { REFUSAL_REASONS } from '../../services/connectors/adyen/errors.js';
import { serveStandIn } from './stand-in-server.js';
import { createAdyenDisputeEndpoints, type StandInAdyenDispute } from './adyen-stand-in-disputes.js';

export interface RecordedAdyenRequest {
  method: string;
  /** Without the /checkout prefix of live hosts and the version: /payments, /payments/PSP/captures. */
  path: string;
  version: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

type Answer = { status: number; body: Record<string, unknown>; headers?: Record<string, string> };
export interface StandInPayment {
  pspReference: string; reference: string; amount: { value: number; currency: string }; resultCode: string;
  manual: boolean; captured: number; refunded: number; cancelled: boolean;
  /** The scheme's id answered for an authorised card payment (with `networkTxReference` on). */
  networkTxReference?: string;
}

export interface AdyenStandIn {
  baseUrl: string;
  requests: RecordedAdyenRequest[];
  payments: Map<string, StandInPayment>;
  /** Modifications by their own pspReference. */
  modifications: Map<string, Record<string, unknown>>;
  /** How long standin_slow holds back the first answer (the payment is made at once). */
  slowAnswerMs: number;
  /** Refunds are answered slowly too (made at once, their answer held back slowAnswerMs): a caller's deadline passes. */
  slowRefunds: boolean;
  /**
   * The account selected networkTxReference among its additional data (Customer Area, Developers >
   * Additional data): an authorised card payment then answers the scheme's transaction id.
   */
  networkTxReference: boolean;
  /** Disputes by their pspReference (the Disputes API's state). */
  disputes: Map<string, StandInAdyenDispute>;
  /** The shopper's bank disputes a payment: a dispute of its own pspReference. */
  openDispute(paymentPspReference: string): StandInAdyenDispute;
  /** The dispute notification item Adyen sends for an event code, with its disputeStatus. */
  disputeItem(merchantAccountCode: string, d: StandInAdyenDispute, eventCode: string, disputeStatus: string, eventDate?: Date): NotificationItemInput;
  close(): Promise<void>;
}

const apiError = (status: number, errorCode: string, message: string, errorType: string, headers?: Record<string, string>): Answer => ({
  status, body: { status, errorCode, message, errorType }, headers,
});

/** A card number's check digit (ISO/IEC 7812), as Adyen checks raw card numbers. */
function luhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** refusalReasonCode by Adyen's test holder names (REFUSED, NOT_ENOUGH_BALANCE, CVC_DECLINED, …). */
function codeForHolderName(name: string): string | undefined {
  const wanted = name.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  return Object.entries(REFUSAL_REASONS).find(([, r]) => r.reason!.toUpperCase().replace(/[^A-Z0-9]+/g, '_') === wanted)?.[0];
}

export async function startAdyenStandIn(opts: { apiKeys: string[]; merchantAccounts: string[] }): Promise<AdyenStandIn> {
  const requests: RecordedAdyenRequest[] = [];
  const payments = new Map<string, StandInPayment>();
  const modifications = new Map<string, Record<string, unknown>>();
  const saved = new Map<string, { answer?: Answer }>();
  let seq = 0;
  const psp = () => `STANDIN${String(++seq).padStart(9, '0')}`;

  function createPayment(b: Record<string, unknown>, baseUrl: string): Answer {
    const amount = b.amount as { value?: unknown; currency?: unknown } | undefined;
    if (!amount || !Number.isInteger(amount.value) || typeof amount.currency !== 'string') {
      return apiError(422, '100', 'Required object \'amount\' is not provided.', 'validation');
    }
    if (!b.reference) return apiError(422, '130', 'Required field \'reference\' is not provided.', 'validation');
    const pm = (b.paymentMethod ?? {}) as Record<string, string>;
    if (!pm.type) return apiError(422, '14_007', 'Invalid payment method data', 'validation');
    // Raw card fields (a vault forwarded them): Adyen validates the number before anything else.
    if ('number' in pm && !luhnValid(pm.number)) return apiError(422, '101', 'Invalid card number', 'validation');
    const manual = (b.additionalData as Record<string, string> | undefined)?.manualCapture === 'true';
    const p: StandInPayment = {
      pspReference: psp(), reference: String(b.reference), amount: amount as StandInPayment['amount'], resultCode: 'Authorised',
      manual, captured: 0, refunded: 0, cancelled: false,
    };
    // A card (scheme) answer names its brand, and the BIN among the additional data an account
    // selects in its Customer Area (this stand-in's account selected cardBin and paymentMethod).
    const card = pm.type === 'scheme'
      ? { paymentMethod: { type: 'scheme', brand: 'mc' }, additionalData: { cardBin: '555544', paymentMethod: 'mc' } }
      : {};
    const base = { pspReference: p.pspReference, merchantReference: p.reference, ...card };
    const stored = pm.storedPaymentMethodId ?? '';
    if (stored === 'standin_server_error') return apiError(500, '000', 'Internal error', 'internal');
    const refused = /^standin_refused_(\d+)$/.exec(stored)?.[1] ?? (pm.holderName ? codeForHolderName(pm.holderName) : undefined);
    payments.set(p.pspReference, p);
    if (refused) {
      p.resultCode = 'Refused';
      return { status: 200, body: { ...base, resultCode: 'Refused', refusalReason: REFUSAL_REASONS[refused]?.reason ?? 'Refused', refusalReasonCode: refused } };
    }
    if (stored === 'standin_error') {
      p.resultCode = 'Error';
      return { status: 200, body: { ...base, resultCode: 'Error', refusalReason: 'Acquirer Error', refusalReasonCode: '4' } };
    }
    if (stored === 'standin_pending') return { status: 200, body: { ...base, resultCode: (p.resultCode = 'Received') } };
    if (stored === 'standin_3ds') {
      if (!b.returnUrl) {
        p.resultCode = 'Refused';
        return { status: 200, body: { ...base, resultCode: 'Refused', refusalReason: 'Authentication required', refusalReasonCode: '38' } };
      }
      p.resultCode = 'RedirectShopper';
      return {
        status: 200,
        body: { ...base, resultCode: 'RedirectShopper', action: { type: 'redirect', method: 'GET', paymentMethodType: 'scheme', url: `${baseUrl}/3ds/${p.pspReference}` } },
      };
    }
    if (standIn.networkTxReference && pm.type === 'scheme') p.networkTxReference = `${p.pspReference.slice(-9)}${String(Date.now() % 1e6).padStart(6, '0')}`;
    const ntx = p.networkTxReference ? { networkTxReference: p.networkTxReference } : {};
    const additionalData = { ...(base as { additionalData?: object }).additionalData, ...ntx };
    return { status: 200, body: { ...base, additionalData, resultCode: 'Authorised', amount: p.amount } };
  }

  function details(b: Record<string, unknown>): Answer {
    const ref = String((b.details as Record<string, string> | undefined)?.redirectResult ?? '');
    const p = payments.get(ref);
    if (!p || p.resultCode !== 'RedirectShopper') return apiError(422, '101', 'Invalid redirectResult', 'validation');
    p.resultCode = 'Authorised';
    return { status: 200, body: { pspReference: p.pspReference, merchantReference: p.reference, resultCode: 'Authorised' } };
  }

  function modify(kind: string, p: StandInPayment | undefined, b: Record<string, unknown>, merchantAccount: string): Answer {
    if (!p) return apiError(422, '167', 'Original pspReference required for this operation', 'validation');
    const amount = b.amount as StandInPayment['amount'] | undefined;
    if (kind !== 'cancels' && (!amount || amount.currency !== p.amount.currency)) {
      return apiError(422, '137', 'Invalid amount specified', 'validation');
    }
    // Adyen accepts a modification it can read and decides it later: the stand-in decides at once.
    if (kind === 'captures' && p.manual && !p.cancelled) p.captured += amount!.value;
    if (kind === 'cancels' && p.captured === 0) p.cancelled = true;
    if (kind === 'refunds' && p.refunded + amount!.value <= (p.manual ? p.captured : p.amount.value)) p.refunded += amount!.value;
    const m = {
      merchantAccount, paymentPspReference: p.pspReference, pspReference: psp(), reference: b.reference, status: 'received',
      ...(amount && { amount }),
    };
    modifications.set(m.pspReference, { ...m, kind });
    return { status: 201, body: m };
  }

  function route(path: string, b: Record<string, unknown>, baseUrl: string): Answer {
    const merchantAccount = String(b.merchantAccount ?? '');
    if (!opts.merchantAccounts.includes(merchantAccount)) return apiError(403, '901', 'Invalid Merchant Account', 'security');
    if (path === '/paymentMethods') {
      return { status: 200, body: { paymentMethods: [{ name: 'Cards', type: 'scheme', brands: ['visa', 'mc', 'amex'] }] } };
    }
    if (path === '/payments') return createPayment(b, baseUrl);
    if (path === '/payments/details') return details(b);
    const m = /^\/payments\/([^/]+)\/(captures|cancels|refunds)$/.exec(path);
    if (m) return modify(m[2], payments.get(decodeURIComponent(m[1])), b, merchantAccount);
    return apiError(404, '000', `Unknown endpoint ${path}`, 'validation');
  }

  /** The first response of a key, again; 704 while the first still runs. Validation errors are not kept. */
  async function idempotent(key: string, rec: RecordedAdyenRequest, run: () => Answer): Promise<Answer> {
    const prior = saved.get(key);
    if (prior) {
      if (!prior.answer) return apiError(422, '704', 'request already processed or in progress', 'validation', { 'transient-error': 'true' });
      return { ...prior.answer, headers: { ...prior.answer.headers, 'idempotency-key': key.split(' ').pop()! } };
    }
    const slot: { answer?: Answer } = {};
    saved.set(key, slot);
    const answer = run();
    if (answer.status === 422) {
      saved.delete(key);
      return answer;
    }
    const slow = (rec.body.paymentMethod as Record<string, string> | undefined)?.storedPaymentMethodId === 'standin_slow'
      || (standIn.slowRefunds && rec.path.endsWith('/refunds'));
    if (slow) await sleep(standIn.slowAnswerMs);
    slot.answer = answer;
    return answer;
  }

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string, baseUrl: string): Promise<void> {
    const url = new URL(req.url ?? '/', baseUrl);
    const m = /^(?:\/checkout)?\/(v\d+)(\/.*)$/.exec(url.pathname);
    let body: Record<string, unknown> = {};
    try {
      body = raw ? JSON.parse(raw) as Record<string, unknown> : {};
    } catch {
      body = {};
    }
    const dm = /^\/ca\/services\/DisputeService\/(v\d+)\/(\w+)$/.exec(url.pathname);
    const rec: RecordedAdyenRequest = {
      method: req.method ?? '', path: dm ? `/DisputeService/${dm[2]}` : m?.[2] ?? url.pathname, version: dm?.[1] ?? m?.[1] ?? '', headers: req.headers, body,
    };
    requests.push(rec);
    const send = (a: Answer) => {
      res.writeHead(a.status, { 'content-type': 'application/json', 'pspreference': `STANDINREQ${requests.length}`, ...a.headers });
      res.end(JSON.stringify(a.body));
    };
    const apiKey = req.headers['x-api-key'];
    if (typeof apiKey !== 'string' || !opts.apiKeys.includes(apiKey)) {
      return send(apiError(401, '000', 'HTTP Status Response - Unauthorized', 'security'));
    }
    if (dm && req.method === 'POST') return send(disputeEndpoints.route(dm[2], body));
    if (!m || req.method !== 'POST') return send(apiError(404, '000', 'Not found', 'validation'));
    const key = req.headers['idempotency-key'];
    const run = () => route(rec.path, body, baseUrl);
    send(typeof key === 'string' ? await idempotent(`${apiKey} ${key}`, rec, run) : run());
  }

  const disputeEndpoints = createAdyenDisputeEndpoints({ merchantAccounts: opts.merchantAccounts });
  const server = await serveStandIn(handle, (err) => ({ status: 500, errorCode: '000', message: String(err), errorType: 'internal' }));
  const standIn: AdyenStandIn = {
    baseUrl: server.baseUrl,
    requests,
    payments,
    modifications,
    slowAnswerMs: 3_000,
    slowRefunds: false,
    networkTxReference: false,
    disputes: disputeEndpoints.disputes,
    openDispute: (psp) => disputeEndpoints.openDispute(payments.get(psp)!),
    disputeItem: disputeEndpoints.disputeItem,
    close: server.close,
  };
  return standIn;
}

export interface NotificationItemInput {
  eventCode: string;
  pspReference: string;
  merchantAccountCode: string;
  merchantReference: string;
  amount: { value: number; currency: string };
  success: boolean;
  originalReference?: string;
  reason?: string;
  eventDate?: string;
  /** Dispute items' details (disputeStatus, chargebackReasonCode, …); not signed, as Adyen's HMAC leaves them out. */
  additionalData?: Record<string, string>;
}

/** A standard notification batch as Adyen sends it, each item signed with `hmacKey` (hex) by the library's validator. */
export function signedNotification(hmacKey: string, items: NotificationItemInput[], live = false): string {
  const validator = new adyen.hmacValidator();
  return JSON.stringify({
    live: String(live),
    notificationItems: items.map((i) => {
      const item = {
        amount: i.amount, eventCode: i.eventCode, eventDate: i.eventDate ?? new Date().toISOString(),
        merchantAccountCode: i.merchantAccountCode, merchantReference: i.merchantReference, pspReference: i.pspReference,
        ...(i.originalReference && { originalReference: i.originalReference }), ...(i.reason && { reason: i.reason }),
        success: String(i.success), additionalData: { ...i.additionalData } as Record<string, string>,
      };
      item.additionalData.hmacSignature = validator.calculateHmac(item as never, hmacKey);
      return { NotificationRequestItem: item };
    }),
  });
}
