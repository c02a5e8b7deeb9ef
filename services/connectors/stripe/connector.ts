// The Stripe connector, on the official SDK and Stripe's PaymentIntents, Refunds, Payouts and Balance APIs.
// It implements the connector interface and nothing else: credentials come from the
// CredentialSource by account id; outcomes and failures come from the table in errors.ts.
import type Stripe from 'stripe';
import { idTime } from '../../platform/ids.js';
import { failed, statusFromRepeat } from '../outcome-mapping.js';
import { toStripeAmount } from './amounts.js';
import type { ProviderNetwork } from '../provider-fetch.js';
import { createStripeClients, withSignal, type StripeAccount } from './client.js';
import { createStripeDisputes } from './disputes.js';
import { CONDITIONS } from './errors.js';
import { listStripeSettlements } from './settlements.js';
import { readStripeNotification } from './notifications.js';
import { checkByBalance, fromError, fromHeldIntent, fromIntent, fromRefund, isStripeError, refusal } from './outcomes.js';
import { createStripePayouts } from './payouts.js';
import type {
  AuthorizeRequest, AuthorizeResult, Connector, CredentialCheck, CredentialSource, HoldRequest, HoldResult,
  PaymentStatusResult, ProviderAccountRef, RefundRequest, RefundResult,
} from '../types.js';
import { minorToJson } from '../../contract/money.js';

/**
 * How long a PaymentIntent may take to appear in Stripe's search after it was created: "data is
 * usually searchable within a minute, but can lag up to an hour during outages". An attempt older
 * than this that search does not show was never received by Stripe.
 */
const SEARCH_SETTLED_MS = 65 * 60_000;

/** PaymentIntent create parameters for an attempt; undefined when Stripe cannot carry the amount exactly. */
export function intentParams(req: AuthorizeRequest): Stripe.PaymentIntentCreateParams | undefined {
  const amount = toStripeAmount(req.amount, req.currency);
  if (amount === undefined) return undefined;
  return {
    amount: minorToJson(amount),
    currency: req.currency.toLowerCase(),
    confirm: true,
    capture_method: req.captureMethod === 'manual' ? 'manual' : 'automatic',
    payment_method: req.paymentMethodToken,
    metadata: { payment_id: req.paymentId, attempt_id: req.attemptId },
    // The customer is absent: Stripe marks the charge merchant-initiated with the network
    // transaction id it keeps for its own PaymentMethod (the public API takes no id of ours).
    ...(req.merchantInitiated && { off_session: true }),
    // The charge in the answer, for its card's network (payment_method_details.card), which routing learns from.
    expand: ['latest_charge'],
    // With the merchant's page Stripe answers 3-D Secure with a redirect (next_action.redirect_to_url);
    // without one nobody could come back, so Stripe fails such a payment instead of waiting
    // (authentication_required) and offers no redirecting method.
    ...(req.returnUrl
      ? { return_url: req.returnUrl }
      : { error_on_requires_action: true, automatic_payment_methods: { enabled: true, allow_redirects: 'never' as const } }),
  };
}

/** `network` defaults to no operator-listed origin: a merchant-chosen api_base_url must be public https. */
export function createStripeConnector(
  { credentials, network = { allowlist: [] } }: { credentials: CredentialSource; network?: ProviderNetwork },
): Connector {
  const clients = createStripeClients(credentials, network);

  /** PaymentIntent create with the attempt id as Idempotency-Key: the first call, and the safe retry of a lost one. */
  async function confirm(account: StripeAccount, req: AuthorizeRequest): Promise<AuthorizeResult> {
    const params = intentParams(req);
    if (!params) return failed(CONDITIONS.amount_not_representable, { code: req.currency });
    try {
      const pi = await withSignal(req.signal, () => account.client.paymentIntents.create(params, { idempotencyKey: req.attemptId }));
      return fromIntent(pi, req);
    } catch (err) {
      if (!isStripeError(err)) throw err;
      return fromError(err);
    }
  }

  /**
   * Without the method's token (reconciliation, long after the request): Stripe has no lookup by
   * Idempotency-Key, so the PaymentIntent is found by the attempt id in its metadata.
   */
  async function search(account: StripeAccount, req: AuthorizeRequest): Promise<PaymentStatusResult> {
    const query = `metadata['attempt_id']:'${req.attemptId.replace(/'/g, "\\'")}'`;
    const found = await withSignal(req.signal, () => account.client.paymentIntents.search({ query, limit: 1 }));
    if (found.data[0]) return { found: true, ...fromIntent(found.data[0], req) };
    const madeAt = idTime(req.attemptId);
    if (madeAt && Date.now() - madeAt.getTime() > SEARCH_SETTLED_MS) return { found: false };
    return { found: true, ...failed(CONDITIONS.processing, { message: 'Not in Stripe\'s search yet' }) };
  }

  async function hold(
    req: HoldRequest, call: (client: Stripe, params: { idempotencyKey: string }) => Promise<Stripe.PaymentIntent>,
    done: Stripe.PaymentIntent.Status,
  ): Promise<HoldResult> {
    const account = await clients.forAccount(req.account.id);
    if (!account) return { outcome: 'provider_unavailable', providerCode: null, providerMessage: CONDITIONS.missing_credentials.message };
    try {
      const pi = await withSignal(req.signal, () => call(account.client, { idempotencyKey: req.operationId }));
      return fromHeldIntent(pi, done === 'succeeded' ? 'capture' : 'cancel', done);
    } catch (err) {
      return refusal(err);
    }
  }

  return {
    async authorize(req) {
      const account = await clients.forAccount(req.account.id);
      if (!account) return failed(CONDITIONS.missing_credentials);
      return confirm(account, req);
    },

    /**
     * Right after a lost answer the request still has the method's token, so the create is sent
     * again with the same parameters and Idempotency-Key: Stripe answers the first request's saved
     * response (declines included), 409 idempotency_key_in_use while it still runs, or, if the
     * first never arrived, processes this one, so the customer is charged at most once either way.
     * A transport failure here is thrown: the status query failed and the attempt stays unknown.
     */
    async getStatus(req) {
      const account = await clients.forAccount(req.account.id);
      if (!account) return { found: false };
      if (!req.paymentMethodToken) return search(account, req);
      return statusFromRepeat(await confirm(account, req), 'Stripe');
    },

    async refund(req: RefundRequest): Promise<RefundResult> {
      const account = await clients.forAccount(req.account.id);
      const amount = toStripeAmount(req.amount, req.currency);
      const none = { providerRefundId: null, providerCode: null };
      if (!account) return { ...none, outcome: 'provider_unavailable', providerMessage: CONDITIONS.missing_credentials.message };
      if (!req.providerPaymentId || amount === undefined) {
        return { ...none, outcome: 'hard_decline', providerMessage: 'No Stripe PaymentIntent or amount to refund' };
      }
      try {
        const refund = await withSignal(req.signal, () => account.client.refunds.create({
          payment_intent: req.providerPaymentId!,
          amount: minorToJson(amount),
          metadata: { refund_id: req.refundId, payment_id: req.paymentId, ...(req.reason && { reason: req.reason }) },
        }, { idempotencyKey: req.refundId }));
        return fromRefund(refund);
      } catch (err) {
        return { providerRefundId: null, ...refusal(err) };
      }
    },

    async capture(req) {
      const amount = toStripeAmount(req.amount, req.currency);
      if (amount === undefined) {
        return { outcome: 'hard_decline', providerCode: null, providerMessage: CONDITIONS.amount_not_representable.message };
      }
      return hold(req, (client, opts) => client.paymentIntents.capture(
        req.providerPaymentId, { amount_to_capture: minorToJson(amount) }, opts,
      ), 'succeeded');
    },

    cancel(req) {
      return hold(req, (client, opts) => client.paymentIntents.cancel(req.providerPaymentId, {}, opts), 'canceled');
    },

    async checkCredentials(account: ProviderAccountRef): Promise<CredentialCheck> {
      const stripe = await clients.forAccount(account.id);
      if (!stripe) return { ok: false, providerCode: null, message: CONDITIONS.missing_credentials.message };
      return checkByBalance(stripe.client);
    },

    // Webhook events, verified with the account's webhook secret (notifications.ts).
    readNotification: (req) => readStripeNotification(credentials, req),

    // Each payout with its balance transactions (settlements.ts); errors are thrown (no answer to normalise).
    async listSettlements(req) {
      const account = await clients.forAccount(req.account.id);
      if (!account) throw new Error(CONDITIONS.missing_credentials.message);
      return withSignal(req.signal, () => listStripeSettlements(account.client, req.since));
    },

    // Payouts from the account's balance to its external accounts (payouts.ts).
    ...createStripePayouts(clients),

    // Disputes: accept, evidence with its files, the sync's read of dispute events (disputes.ts).
    ...createStripeDisputes((id) => clients.forAccount(id)),
  };
}
