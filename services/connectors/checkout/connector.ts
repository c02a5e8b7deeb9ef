// The Checkout.com connector, on the official checkout-sdk-node and Checkout.com's unified payments
// API (/payments, its captures, voids and refunds, the payment list by reference) and its webhooks.
// It implements the connector interface and nothing else: credentials come from the
// CredentialSource by account id; outcomes and failures come from the tables in errors.ts. A card
// forwarded by a vault is paid with the raw-card request sent through the vault, read as a direct answer.
import { idTime } from '../../platform/ids.js';
import { answerId, credentialCheck, failed, statusFromLookup, statusFromRepeat } from '../outcome-mapping.js';
import type { ProviderNetwork } from '../provider-fetch.js';
import { payDirectOrForwarded, type VaultForwarders } from '../vault-forwarding.js';
import { toCheckoutAmount } from './amounts.js';
import { createCheckoutClients, type CheckoutAccount } from './client.js';
import { CONDITIONS } from './errors.js';
import { readCheckoutNotification } from './notifications.js';
import { createCheckoutDisputes } from './disputes.js';
import { describeError, fromError, fromPayment, isCheckoutError, refusal, type CheckoutPayment } from './outcomes.js';
import { forwardedCard, isRequest, paymentRequest, type ForwardedCard } from './request.js';
import type {
  AuthorizeRequest, AuthorizeResult, Connector, CredentialCheck, CredentialSource, HoldRequest, HoldResult,
  PaymentStatusResult, ProviderAccountRef, RefundRequest, RefundResult,
} from '../types.js';
import { minorToJson } from '../../contract/money.js';

/**
 * How long after its attempt a payment may still be missing from Checkout.com's payment list while
 * its request is under way; an attempt older than this that the list does not show never arrived.
 */
const LIST_SETTLED_MS = 65 * 60_000;

/** The reference of the credential check's payment list: no payment of ours carries it. */
const CHECK_REFERENCE = 'svc-credential-check';

/** An action's 202 answer: `{action_id, reference}`. */
type ActionAnswer = { action_id?: string };

/** `network` defaults to no operator-listed origin: a merchant-chosen api_base_url must be public https. */
export function createCheckoutConnector(
  { credentials, network = { allowlist: [] }, vaults }: { credentials: CredentialSource; network?: ProviderNetwork; vaults?: VaultForwarders },
): Connector {
  const clients = createCheckoutClients(credentials, network);

  /** POST /payments with the attempt id as Cko-Idempotency-Key: the first call, and the safe retry of a lost one. */
  async function pay(account: CheckoutAccount, req: AuthorizeRequest, card?: ForwardedCard): Promise<AuthorizeResult> {
    const body = paymentRequest(req, account.processingChannelId, card);
    if (!isRequest(body)) return failed(body, { code: req.currency });
    try {
      const res = await account.call(req.signal, (c) => c.payments.request(body, req.attemptId));
      return fromPayment(res as CheckoutPayment, req);
    } catch (err) {
      if (!isCheckoutError(err)) throw err;
      return fromError(err);
    }
  }

  /** The payment Checkout.com lists under our attempt id as reference, if any. */
  async function listed(account: CheckoutAccount, req: AuthorizeRequest): Promise<CheckoutPayment | undefined> {
    const page = await account.call(req.signal, (c) => c.payments.getPaymentList({ reference: req.attemptId, limit: 1 })) as { data?: CheckoutPayment[] };
    return page?.data?.find((p) => p.reference === req.attemptId);
  }

  /**
   * An action on a payment (capture, void, refund), sent under its own id as Cko-Idempotency-Key. Checkout.com
   * answers 202 Accepted with the action's id and decides later (payment_captured, payment_voided,
   * payment_refunded, or their _declined events): accepted is the success of the call, which the
   * webhook then confirms or reverses. An answer without the action's id decides nothing
   * (UnreadableAnswer): the action is sent again under its key.
   */
  async function act(
    req: { account: ProviderAccountRef; signal: AbortSignal }, operation: string,
    call: (account: CheckoutAccount) => Promise<unknown>,
  ): Promise<HoldResult & { actionId: string | null }> {
    const account = await clients.forAccount(req.account.id);
    if (!account) return { outcome: 'provider_unavailable', providerCode: null, providerMessage: CONDITIONS.missing_credentials.message, actionId: null };
    try {
      const res = await account.call(req.signal, () => call(account)) as ActionAnswer;
      const actionId = answerId('Checkout.com', operation, res, 'action_id');
      return { outcome: 'success', providerCode: 'accepted', providerMessage: 'Accepted by Checkout.com; its webhook confirms the outcome', actionId };
    } catch (err) {
      return { ...refusal(err), actionId: null };
    }
  }

  return {
    /**
     * Directly, or a forwarded card: the raw-card request with the vault's placeholders, sent through
     * the vault by the same SDK call, so the answer is read as a direct one under the same
     * Cko-Idempotency-Key. A vault that gives no answer of Checkout.com's surfaces as no answer, and
     * the status query decides.
     */
    authorize: (req) => payDirectOrForwarded(req, {
      vaults, clients, conditions: CONDITIONS,
      pay: (account, placeholders) => pay(account, req, placeholders && forwardedCard(placeholders, req)),
    }),

    /**
     * By our reference first: the payment list answers what Checkout.com made of the attempt. Not
     * listed while the request still has the method's token, the request is sent again with the
     * same Cko-Idempotency-Key: Checkout.com answers the first one's response, 409 while it still
     * runs (unknown), or, if the first never arrived, processes this one, so the customer is charged
     * at most once. Without the token (reconciliation) an attempt missing from the list is open
     * until it is old enough to be sure it never arrived; so is a forwarded attempt's: a
     * repeat could only go through the vault with the card again, and the list, asked directly and
     * without the card, tells what Checkout.com received. A failed lookup is thrown: the attempt
     * stays unknown and is asked again later.
     */
    async getStatus(req): Promise<PaymentStatusResult> {
      const account = await clients.forAccount(req.account.id);
      if (!account) return { found: false };
      const known = await statusFromLookup(() => listed(account, req), (p) => fromPayment(p, req), isCheckoutError, describeError);
      if (known) return known;
      if (req.paymentMethodToken && !req.forwarding) return statusFromRepeat(await pay(account, req), 'Checkout.com');
      const madeAt = idTime(req.attemptId);
      if (madeAt && Date.now() - madeAt.getTime() > LIST_SETTLED_MS) return { found: false };
      return { found: true, ...failed(CONDITIONS.not_found_yet) };
    },

    async refund(req: RefundRequest): Promise<RefundResult> {
      const amount = toCheckoutAmount(req.amount, req.currency);
      if (!req.providerPaymentId || amount === undefined) {
        return { outcome: 'hard_decline', providerRefundId: null, providerCode: null, providerMessage: 'No Checkout.com payment id or amount to refund' };
      }
      const body = { amount: minorToJson(amount), reference: req.refundId, metadata: { refund_id: req.refundId } };
      const r = await act(req, 'refund', (a) => a.client.payments.refund(req.providerPaymentId!, body, req.refundId));
      return { outcome: r.outcome, providerRefundId: r.actionId, providerCode: r.providerCode, providerMessage: r.providerMessage };
    },

    async capture(req: HoldRequest) {
      const amount = toCheckoutAmount(req.amount, req.currency);
      if (amount === undefined) return { outcome: 'hard_decline', providerCode: null, providerMessage: CONDITIONS.amount_not_representable.message };
      const body = { amount: minorToJson(amount), reference: req.operationId };
      const { actionId: _a, ...r } = await act(req, 'capture', (a) => a.client.payments.capture(req.providerPaymentId, body, req.operationId));
      return r;
    },

    async cancel(req: HoldRequest) {
      const body = { reference: req.operationId };
      const { actionId: _a, ...r } = await act(req, 'void', (a) => a.client.payments.void(req.providerPaymentId, body, req.operationId));
      return r;
    },

    /** A payment list by a reference no payment carries: harmless, and answered only for a valid secret key. */
    async checkCredentials(ref: ProviderAccountRef): Promise<CredentialCheck> {
      const account = await clients.forAccount(ref.id);
      if (!account) return { ok: false, providerCode: null, message: CONDITIONS.missing_credentials.message };
      return credentialCheck(
        () => account.call(AbortSignal.timeout(15_000), (c) => c.payments.getPaymentList({ reference: CHECK_REFERENCE, limit: 1 })),
        isCheckoutError, describeError,
      );
    },

    readNotification: (req) => readCheckoutNotification(credentials, req),

    // Disputes: accept, evidence with its files, the sync's list by last update (disputes.ts).
    ...createCheckoutDisputes((id) => clients.forAccount(id)),
  };
}
