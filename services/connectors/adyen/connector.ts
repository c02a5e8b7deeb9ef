// The Adyen connector, on the official @adyen/api-library and Adyen's Checkout API (/payments,
// modifications by pspReference, /paymentMethods) and standard notifications. It implements the
// connector interface and nothing else: credentials come from the CredentialSource by account id;
// outcomes and failures come from the tables in errors.ts. A card forwarded by a vault is
// paid with Adyen's raw-card request sent through the vault (forwarded.ts), read as a direct answer.
import type { Types } from '@adyen/api-library';
import { minorToJson } from '../../contract/money.js';
import { toAdyenAmount } from './amounts.js';
import { createAdyenClients, type AdyenAccount } from './client.js';
import { browserPaymentMethod } from './facts.js';
import type { ProviderNetwork } from '../provider-fetch.js';
import { CONDITIONS } from './errors.js';
import { readAdyenSettlementReport } from './settlement-report.js';
import { readAdyenNotification } from './notifications.js';
import { createAdyenDisputes } from './disputes.js';
import { describeError, fromError, fromPayment, isAdyenError, refusal } from './outcomes.js';
import { answerId, answerStatus, credentialCheck, failed, statusFromRepeat } from '../outcome-mapping.js';
import { payDirectOrForwarded, type VaultForwarders } from '../vault-forwarding.js';
import { forwardedCard, neverReceivedForwarded } from './forwarded.js';
import type {
  AuthorizeRequest, AuthorizeResult, Connector, CredentialCheck, CredentialSource, HoldRequest, HoldResult,
  PaymentStatusResult, ProviderAccountRef, RefundRequest, RefundResult,
} from '../types.js';

type PaymentRequest = Types.checkout.PaymentRequest;

/**
 * The token as Adyen's `paymentMethod`. A JSON object is the paymentMethod Adyen's Drop-in or
 * Components produced in the customer's browser (`state.data.paymentMethod`: encrypted card fields,
 * or any other method's data), sent as it is. Any other string is a card stored at Adyen
 * (storedPaymentMethodId), optionally preceded by the shopperReference it is stored under and a
 * colon (`SHOPPER_REF:STORED_ID`; Adyen's stored ids have no colon).
 */
export function paymentMethodOf(token: string | undefined): Pick<PaymentRequest, 'paymentMethod' | 'shopperReference' | 'shopperInteraction' | 'recurringProcessingModel'> | undefined {
  if (!token) return undefined;
  if (token.trimStart().startsWith('{')) {
    const pm = browserPaymentMethod(token);
    return pm ? { paymentMethod: pm as PaymentRequest['paymentMethod'] } : undefined;
  }
  const cut = token.lastIndexOf(':');
  const stored = token.slice(cut + 1);
  if (!stored) return undefined;
  return {
    paymentMethod: { type: 'scheme', storedPaymentMethodId: stored } as PaymentRequest['paymentMethod'],
    ...(cut > 0 && { shopperReference: token.slice(0, cut) }),
    shopperInteraction: 'ContAuth' as PaymentRequest['shopperInteraction'],
    recurringProcessingModel: 'CardOnFile' as PaymentRequest['recurringProcessingModel'],
  };
}

/** The /payments request for an attempt, or the rule that refuses it before anything is sent. */
export function paymentParams(
  req: AuthorizeRequest, merchantAccount: string, method = paymentMethodOf(req.paymentMethodToken),
): PaymentRequest | typeof CONDITIONS[keyof typeof CONDITIONS] {
  const value = toAdyenAmount(req.amount, req.currency);
  if (value === undefined) return CONDITIONS.amount_not_representable;
  if (!method) return CONDITIONS.unusable_token;
  const manual = req.captureMethod === 'manual';
  const mit = req.merchantInitiated;
  const additionalData = {
    ...(manual && { manualCapture: 'true' }),
    ...(mit && { networkTxReference: mit.networkTransactionId }),
  };
  return {
    amount: { value: minorToJson(value), currency: req.currency.toUpperCase() },
    merchantAccount,
    reference: req.attemptId,
    ...method,
    // The customer is absent: a recurring charge on agreed terms, tied by the scheme's id to the
    // payment they made in person (docs/decisions.md, merchant-initiated payments).
    ...(mit && {
      shopperInteraction: 'ContAuth' as PaymentRequest['shopperInteraction'],
      recurringProcessingModel: 'Subscription' as PaymentRequest['recurringProcessingModel'],
    }),
    metadata: { payment_id: req.paymentId },
    ...(Object.keys(additionalData).length > 0 && { additionalData }),
    // Per payment, whatever the merchant account's default capture delay: manualCapture holds the
    // funds until a capture; captureDelayHours 0 captures at once.
    ...(!manual && { captureDelayHours: 0 }),
    // Without the merchant's page nobody could come back from 3-D Secure: Adyen is asked not to
    // authenticate, and an issuer that insists refuses (38 Authentication required, a soft decline).
    ...(req.returnUrl
      ? { returnUrl: req.returnUrl }
      : { authenticationData: { attemptAuthentication: 'never' } } as Pick<PaymentRequest, 'authenticationData'>),
  } as PaymentRequest;
}

/** `network` defaults to no operator-listed origin: a merchant-chosen api_base_url must be public https. */
export function createAdyenConnector(
  { credentials, network = { allowlist: [] }, vaults }: { credentials: CredentialSource; network?: ProviderNetwork; vaults?: VaultForwarders },
): Connector {
  const clients = createAdyenClients(credentials, network);

  /**
   * /payments with the attempt id as Idempotency-Key: the first call, and the safe retry of a lost
   * one. `method` replaces the token's paymentMethod (a forwarded card's placeholders).
   */
  async function pay(account: AdyenAccount, req: AuthorizeRequest, method?: Pick<PaymentRequest, 'paymentMethod'>): Promise<AuthorizeResult> {
    const params = paymentParams(req, account.merchantAccount, method);
    if (!('merchantAccount' in params)) return failed(params, { code: req.currency });
    try {
      const res = await account.checkout.PaymentsApi.payments(params, { idempotencyKey: req.attemptId, signal: req.signal });
      return fromPayment(res, req);
    } catch (err) {
      if (!isAdyenError(err)) throw err;
      return fromError(err);
    }
  }

  /**
   * A forwarded attempt's status, asked of Adyen directly and without the card: the same request
   * under the same Idempotency-Key with the placeholders left as they are. Adyen answers the
   * forwarded request's response if it received it; a refusal of the card fields says it did not.
   */
  async function forwardedStatus(account: AdyenAccount, req: AuthorizeRequest, forwarding: NonNullable<AuthorizeRequest['forwarding']>): Promise<PaymentStatusResult> {
    const forwarder = vaults?.forVault(forwarding.vault);
    // Without a forwarder, or a token, nothing was sent (payDirectOrForwarded refuses both).
    if (!forwarder || !req.paymentMethodToken) return { found: false };
    const params = paymentParams(req, account.merchantAccount, forwardedCard(forwarder.placeholders(req.paymentMethodToken), req));
    if (!('merchantAccount' in params)) return { found: false };
    try {
      const res = await account.checkout.PaymentsApi.payments(params, { idempotencyKey: req.attemptId, signal: req.signal });
      return statusFromRepeat(fromPayment(res, req), 'Adyen');
    } catch (err) {
      if (neverReceivedForwarded(err)) return { found: false };
      if (!isAdyenError(err)) throw err;
      return statusFromRepeat(fromError(err), 'Adyen');
    }
  }

  /**
   * A modification by pspReference. Adyen answers `received` and decides later (CAPTURE,
   * CANCELLATION, REFUND notifications, or CAPTURE_FAILED / REFUND_FAILED): received is the
   * success of the call, which the notification then confirms or reverses. An answer without its
   * pspReference or `received` decides nothing (UnreadableAnswer): the modification is sent again.
   */
  async function modify(
    req: { account: ProviderAccountRef; signal: AbortSignal }, operation: string, key: string,
    call: (account: AdyenAccount, opts: { idempotencyKey: string; signal: AbortSignal }) => Promise<{ status: string; pspReference: string }>,
  ): Promise<HoldResult & { pspReference: string | null }> {
    const account = await clients.forAccount(req.account.id);
    if (!account) return { outcome: 'provider_unavailable', providerCode: null, providerMessage: CONDITIONS.missing_credentials.message, pspReference: null };
    try {
      const res = await call(account, { idempotencyKey: key, signal: req.signal });
      const pspReference = answerId('Adyen', operation, res, 'pspReference');
      const status = answerStatus('Adyen', operation, res, ['received']);
      return { outcome: 'success', providerCode: status, providerMessage: 'Received by Adyen; its notification confirms the outcome', pspReference };
    } catch (err) {
      return { ...refusal(err), pspReference: null };
    }
  }

  function adyenAmount(amount: bigint, currency: string) {
    const value = toAdyenAmount(amount, currency);
    return value === undefined ? undefined : { value: minorToJson(value), currency: currency.toUpperCase() };
  }

  return {
    /**
     * Directly, or a forwarded card: Adyen's raw-card request with the vault's placeholders, sent
     * through the vault by the same library client, so the answer is read as a direct one. A vault
     * that gives no answer of Adyen's surfaces as no answer (AdyenConnectionError), and the status
     * query decides.
     */
    authorize: (req) => payDirectOrForwarded(req, {
      vaults, clients, conditions: CONDITIONS,
      pay: (account, placeholders) => pay(account, req, placeholders && forwardedCard(placeholders, req)),
    }),

    /**
     * Right after a lost answer the request still has the method's token, so /payments is sent
     * again with the same body and Idempotency-Key: Adyen answers the first request's response,
     * errorCode 704 while it still runs (unknown), or, if the first never arrived, processes this
     * one, so the customer is charged at most once. Without the token (reconciliation) there is
     * nothing to ask: the Checkout API has no lookup by reference, and Adyen's AUTHORISATION
     * notification, sent for every payment it received, decides the attempt.
     */
    async getStatus(req) {
      const account = await clients.forAccount(req.account.id);
      if (!account) return { found: false };
      if (!req.paymentMethodToken) return { found: true, ...failed(CONDITIONS.awaiting_notification) };
      if (req.forwarding) return forwardedStatus(account, req, req.forwarding);
      return statusFromRepeat(await pay(account, req), 'Adyen');
    },

    async refund(req: RefundRequest): Promise<RefundResult> {
      const amount = adyenAmount(req.amount, req.currency);
      if (!req.providerPaymentId || !amount) {
        return { outcome: 'hard_decline', providerRefundId: null, providerCode: null, providerMessage: 'No Adyen pspReference or amount to refund' };
      }
      const r = await modify(req, 'refund', req.refundId, (a, opts) => a.checkout.ModificationsApi.refundCapturedPayment(
        req.providerPaymentId!, { amount, merchantAccount: a.merchantAccount, reference: req.refundId }, opts,
      ));
      return { outcome: r.outcome, providerRefundId: r.pspReference, providerCode: r.providerCode, providerMessage: r.providerMessage };
    },

    async capture(req: HoldRequest) {
      const amount = adyenAmount(req.amount, req.currency);
      if (!amount) return { outcome: 'hard_decline', providerCode: null, providerMessage: CONDITIONS.amount_not_representable.message };
      const { pspReference: _p, ...r } = await modify(req, 'capture', req.operationId, (a, opts) => a.checkout.ModificationsApi.captureAuthorisedPayment(
        req.providerPaymentId, { amount, merchantAccount: a.merchantAccount, reference: req.operationId }, opts,
      ));
      return r;
    },

    async cancel(req: HoldRequest) {
      const { pspReference: _p, ...r } = await modify(req, 'cancel', req.operationId, (a, opts) => a.checkout.ModificationsApi.cancelAuthorisedPaymentByPspReference(
        req.providerPaymentId, { merchantAccount: a.merchantAccount, reference: req.operationId }, opts,
      ));
      return r;
    },

    async checkCredentials(ref: ProviderAccountRef): Promise<CredentialCheck> {
      const account = await clients.forAccount(ref.id);
      if (!account) return { ok: false, providerCode: null, message: CONDITIONS.missing_credentials.message };
      return credentialCheck(
        () => account.checkout.PaymentsApi.paymentMethods({ merchantAccount: account.merchantAccount }, { signal: AbortSignal.timeout(15_000) }),
        isAdyenError, describeError,
      );
    },

    readNotification: (req) => readAdyenNotification(credentials, req),

    // The Settlement details report an operator uploads; every line must name this account's merchant account.
    async readSettlementReport(req) {
      const account = await clients.forAccount(req.account.id);
      if (!account) return { ok: false, line: null, column: null, message: CONDITIONS.missing_credentials.message };
      return readAdyenSettlementReport(req.text, account.merchantAccount);
    },

    // Disputes: accept and defend through the Disputes API (disputes.ts); Adyen lists none, so no listDisputes.
    ...createAdyenDisputes((id) => clients.forAccount(id)),
  };
}
