// The PayPal connector, on the official @paypal/paypal-server-sdk and PayPal's Orders v2 and
// Payments v2 APIs (orders, their capture or authorization, captures of an authorization, voids,
// refunds of a capture) and its webhooks. It implements the connector interface and nothing else:
// credentials come from the CredentialSource by account id; failures from the tables in errors.ts.
import { answerId, answerStatus, credentialCheck, failed, statusFromRepeat } from '../outcome-mapping.js';
import type { ProviderNetwork } from '../provider-fetch.js';
import { toPayPalValue } from './amounts.js';
import { createPayPalClients, type PayPalAccount } from './client.js';
import { approvalExpiry, completeOrder, hasLapsed } from './completion.js';
import { CONDITIONS } from './errors.js';
import { readPayPalNotification } from './notifications.js';
import { createPayPalDisputes } from './disputes.js';
import {
  authorizationOf, captureOf, describeError, fromError, fromOrder, isPayPalError, refusal, type PayPalOrder,
} from './outcomes.js';
import { isOrderRequest, orderRequest } from './request.js';
import type {
  AuthorizeRequest, AuthorizeResult, Connector, CredentialCheck, CredentialSource, HoldRequest, HoldResult,
  PaymentStatusResult, ProviderAccountRef, RefundRequest, RefundResult,
} from '../types.js';

type Ref = { account: ProviderAccountRef; signal: AbortSignal };

const unconfigured = { outcome: 'provider_unavailable', providerCode: null, providerMessage: CONDITIONS.missing_credentials.message } as const;

// The statuses PayPal documents for what a refund, a capture or an order lookup answers; one
// without its id or with another status decides nothing (UnreadableAnswer) and is asked again.
const ORDER_STATUSES = ['CREATED', 'SAVED', 'APPROVED', 'VOIDED', 'COMPLETED', 'PAYER_ACTION_REQUIRED'] as const;
const REFUND_STATUSES = ['CANCELLED', 'FAILED', 'PENDING', 'COMPLETED'] as const;
const CAPTURE_STATUSES = ['COMPLETED', 'DECLINED', 'PARTIALLY_REFUNDED', 'PENDING', 'REFUNDED', 'FAILED'] as const;

/** `network` defaults to no operator-listed origin: a merchant-chosen api_base_url must be public https. */
export function createPayPalConnector(
  { credentials, network = { allowlist: [] } }: { credentials: CredentialSource; network?: ProviderNetwork },
): Connector {
  const clients = createPayPalClients(credentials, network);

  /**
   * POST /v2/checkout/orders with the attempt id as PayPal-Request-Id: the first call, and the
   * status query's repeat, which PayPal answers with the first answer (the order as it was then):
   * the status query reads the order as it is now. An order the customer has approved meanwhile is
   * completed (captured or authorized) before it is answered.
   */
  async function order(account: PayPalAccount, req: AuthorizeRequest, now: boolean): Promise<AuthorizeResult> {
    const body = orderRequest(req);
    if (!isOrderRequest(body)) return failed(body, { code: req.currency });
    let o: PayPalOrder | undefined;
    try {
      o = (await account.orders.createOrder({ body, paypalRequestId: req.attemptId, prefer: 'return=representation' }, { abortSignal: req.signal })).result as PayPalOrder;
      if (now && o.id) o = await current(account, o.id, req.signal);
      o = await completeOrder(account, o, req.attemptId, req.signal);
    } catch (err) {
      if (!isPayPalError(err)) throw err;
      return fromError(err, o?.id);
    }
    const result = fromOrder(o, req.account, req.amount, req.captureMethod === 'manual');
    if (now && result.outcome === 'requires_action' && hasLapsed(req.attemptId)) return failed(CONDITIONS.approval_lapsed, { id: o.id, code: o.status });
    if (result.customerAction) result.customerAction.expiresAt = approvalExpiry(req.attemptId);
    return result;
  }

  /** The order behind our providerPaymentId (the order id), as PayPal shows it now. */
  async function current(account: PayPalAccount, orderId: string, signal: AbortSignal): Promise<PayPalOrder> {
    const o = (await account.orders.getOrder({ id: orderId }, { abortSignal: signal })).result as PayPalOrder;
    answerId('PayPal', 'order lookup', o);
    answerStatus('PayPal', 'order lookup', o, ORDER_STATUSES);
    return o;
  }

  /** A capture, void or refund on the order's payments: PayPal's refusal through the tables. */
  async function act<T>(req: Ref, run: (account: PayPalAccount) => Promise<T | HoldResult>): Promise<T | HoldResult> {
    const account = await clients.forAccount(req.account.id);
    if (!account) return unconfigured;
    try {
      return await run(account);
    } catch (err) {
      return refusal(err);
    }
  }

  const refused = (message: string): HoldResult => ({ outcome: 'hard_decline', providerCode: null, providerMessage: message });

  return {
    async authorize(req) {
      const account = await clients.forAccount(req.account.id);
      if (!account) return failed(CONDITIONS.missing_credentials);
      return order(account, req, false);
    },

    /**
     * Orders have no lookup by our reference: the create is sent again under the same
     * PayPal-Request-Id, which PayPal answers with the order it made (or makes it, if the first
     * never arrived), and an approved order is completed. An order nobody approved long after the
     * approval window has lapsed (completion.ts). No answer is thrown: the attempt stays unknown
     * and is asked again later.
     */
    async getStatus(req): Promise<PaymentStatusResult> {
      const account = await clients.forAccount(req.account.id);
      if (!account) return { found: false };
      return statusFromRepeat(await order(account, req, true), 'PayPal');
    },

    /** POST /v2/payments/captures/{capture}/refund with our refund id as PayPal-Request-Id and custom_id. */
    async refund(req: RefundRequest): Promise<RefundResult> {
      const value = toPayPalValue(req.amount, req.currency);
      if (!req.providerPaymentId || value === undefined) {
        return { outcome: 'hard_decline', providerRefundId: null, providerCode: null, providerMessage: 'No PayPal order or amount to refund' };
      }
      const orderId = req.providerPaymentId;
      const r = await act(req, async (account) => {
        const capture = captureOf(await current(account, orderId, req.signal));
        if (!capture?.id) return refused('The PayPal order has no capture to refund');
        const res = await account.payments.refundCapturedPayment({
          captureId: capture.id, paypalRequestId: req.refundId, prefer: 'return=representation',
          body: { amount: { currencyCode: req.currency.toUpperCase(), value }, customId: req.refundId },
        }, { abortSignal: req.signal });
        answerId('PayPal', 'refund', res.result);
        answerStatus('PayPal', 'refund', res.result, REFUND_STATUSES);
        return res.result;
      });
      if ('outcome' in r) return { ...r, providerRefundId: null };
      // COMPLETED, or PENDING (PayPal sends it later; PAYMENT.CAPTURE.REFUNDED confirms): accepted either way.
      if (r.status === 'CANCELLED' || r.status === 'FAILED') {
        return { outcome: 'hard_decline', providerRefundId: r.id ?? null, providerCode: r.status, providerMessage: 'PayPal did not send the refund' };
      }
      return { outcome: 'success', providerRefundId: r.id ?? null, providerCode: r.status ?? null, providerMessage: 'Refund accepted by PayPal' };
    },

    /** POST /v2/payments/authorizations/{authorization}/capture under our operation id, the final capture of the hold. */
    async capture(req: HoldRequest) {
      const value = toPayPalValue(req.amount, req.currency);
      if (value === undefined) return refused(CONDITIONS.amount_not_representable.message);
      const r = await act(req, async (account) => {
        const auth = authorizationOf(await current(account, req.providerPaymentId, req.signal));
        if (!auth?.id) return refused('The PayPal order has no authorization to capture');
        const res = await account.payments.captureAuthorizedPayment({
          authorizationId: auth.id, paypalRequestId: req.operationId, prefer: 'return=representation',
          body: { amount: { currencyCode: req.currency.toUpperCase(), value }, finalCapture: true },
        }, { abortSignal: req.signal });
        answerId('PayPal', 'capture', res.result);
        answerStatus('PayPal', 'capture', res.result, CAPTURE_STATUSES);
        return res.result;
      });
      if ('outcome' in r) return r;
      if (r.status === 'COMPLETED' || r.status === 'PENDING') return { outcome: 'success', providerCode: r.status, providerMessage: 'Captured at PayPal' } as HoldResult;
      return { outcome: 'hard_decline', providerCode: r.status ?? null, providerMessage: 'PayPal declined the capture' } as HoldResult;
    },

    /**
     * Voids the order's authorization. An order nobody approved holds nothing (PayPal has no call
     * to end one): nothing to release. One approved or completed without a hold cannot be released.
     */
    async cancel(req: HoldRequest) {
      return act(req, async (account) => {
        const o = await current(account, req.providerPaymentId, req.signal);
        if (o.status === 'CREATED' || o.status === 'PAYER_ACTION_REQUIRED' || o.status === 'VOIDED') {
          return { outcome: 'success', providerCode: o.status, providerMessage: 'Nothing is held at PayPal' } as HoldResult;
        }
        const auth = authorizationOf(o);
        if (!auth?.id || auth.status !== 'CREATED') return refused('The PayPal order holds no authorization to void');
        await account.payments.voidPayment({ authorizationId: auth.id, paypalRequestId: req.operationId }, { abortSignal: req.signal });
        return { outcome: 'success', providerCode: 'VOIDED', providerMessage: 'Voided at PayPal' } as HoldResult;
      });
    },

    /** An OAuth token for the client id and secret: harmless, and granted only for valid credentials. */
    async checkCredentials(ref: ProviderAccountRef): Promise<CredentialCheck> {
      const account = await clients.forAccount(ref.id);
      if (!account) return { ok: false, providerCode: null, message: CONDITIONS.missing_credentials.message };
      // The SDK's token request takes no signal: the client's time-out bounds it.
      return credentialCheck(() => account.client.clientCredentialsAuthManager.fetchToken(), isPayPalError, describeError);
    },

    readNotification: (req) => readPayPalNotification(clients, req),
    notificationAsksProvider: true,

    // Disputes through PayPal's REST API by the SDK's request builder (disputes.ts).
    ...createPayPalDisputes((id) => clients.forAccount(id)),
  };
}
