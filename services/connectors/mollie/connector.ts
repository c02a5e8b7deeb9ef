// The Mollie connector, on the official @mollie/api-client and Mollie's Payments API (payments,
// their refunds, the payment list), its webhooks and its settlements. It implements the connector
// interface and nothing else: credentials come from the CredentialSource by account id; outcomes
// and failures come from the tables in errors.ts. Mollie's methods here hold no funds (no
// capture_method manual), so the connector has no capture or cancel.
import { feeFor } from '../../contract/fees.js';
import { idTime } from '../../platform/ids.js';
import { answerId, answerStatus, credentialCheck, failed, statusFromLookup, statusFromRepeat } from '../outcome-mapping.js';
import type { ProviderNetwork } from '../provider-fetch.js';
import { toMollieAmount } from './amounts.js';
import { createMollieClients, type MollieAccount } from './client.js';
import { CONDITIONS } from './errors.js';
import { createMollieDisputes } from './disputes.js';
import { mollieNotificationHint, readMollieNotification } from './notifications.js';
import { describeError, fromError, fromPayment, isMollieError, metadataOf, refusal, type MolliePayment } from './outcomes.js';
import { isRequest, paymentRequest } from './request.js';
import { listMollieSettlements } from './settlements.js';
import type {
  AuthorizeRequest, AuthorizeResult, Connector, CredentialCheck, CredentialSource, PaymentStatusResult,
  ProviderAccountRef, RefundRequest, RefundResult,
} from '../types.js';

/**
 * Mollie answers a repeated Idempotency-Key with the first response for about an hour
 * (https://docs.mollie.com/reference/api-idempotency); past this age a repeat could make a second
 * payment, so an attempt the list does not show is taken as never received.
 */
const KEY_KEPT_MS = 55 * 60_000;

/** How far before the attempt's own time the list is read (clock skew between us and Mollie). */
const CLOCK_SKEW_MS = 5 * 60_000;

/** A refund's statuses at Mollie; one without its id or with another status decides nothing (UnreadableAnswer). */
const REFUND_STATUSES = ['queued', 'pending', 'processing', 'refunded', 'failed', 'canceled'] as const;

/** The most payments a status query reads from the list before it gives up (and asks again later). */
const MAX_LISTED = 2_000;

/** `network` defaults to no operator-listed origin: a merchant-chosen api_base_url must be public https. */
export function createMollieConnector(
  { credentials, network = { allowlist: [] } }: { credentials: CredentialSource; network?: ProviderNetwork },
): Connector {
  const clients = createMollieClients(credentials, network);

  /** POST /v2/payments with the attempt id as Idempotency-Key: the first call, and the safe repeat of a lost one. */
  async function pay(account: MollieAccount, req: AuthorizeRequest): Promise<AuthorizeResult> {
    const body = paymentRequest(req, account.webhookUrl);
    if (!isRequest(body)) return failed(body, { code: req.methodType });
    try {
      const p = await account.call(req.signal, (c) => c.payments.create(body as Parameters<typeof c.payments.create>[0]));
      return fromPayment(p as MolliePayment, feeFor(req.account, req.amount));
    } catch (err) {
      if (!isMollieError(err)) throw err;
      return fromError(err);
    }
  }

  /** The payment Mollie lists with our attempt id in its metadata, read newest first down to the attempt's time. */
  async function listed(account: MollieAccount, req: AuthorizeRequest): Promise<MolliePayment | undefined> {
    const from = (idTime(req.attemptId)?.getTime() ?? 0) - CLOCK_SKEW_MS;
    return account.call(req.signal, async (c) => {
      let read = 0;
      for await (const p of c.payments.iterate() as AsyncIterable<MolliePayment>) {
        if (metadataOf(p, 'attempt_id') === req.attemptId) return p;
        if (new Date(p.createdAt ?? 0).getTime() < from) return undefined;
        if (++read >= MAX_LISTED) throw new Error('Mollie lists too many payments since the attempt to find it');
      }
      return undefined;
    });
  }

  return {
    async authorize(req) {
      const account = await clients.forAccount(req.account.id);
      if (!account) return failed(CONDITIONS.missing_credentials);
      return pay(account, req);
    },

    /**
     * By our attempt id in the payments' metadata first. Not listed while Mollie still keeps the
     * attempt's Idempotency-Key, the request is sent again under it: Mollie answers the first one's
     * payment or, if the first never arrived, makes it now (the customer never saw a page of the
     * first, so nothing is paid twice). Not listed after that: never received. A failed lookup is
     * thrown: the attempt stays unknown and is asked again later.
     */
    async getStatus(req): Promise<PaymentStatusResult> {
      const account = await clients.forAccount(req.account.id);
      if (!account) return { found: false };
      const known = await statusFromLookup(
        () => listed(account, req), (p) => fromPayment(p, feeFor(req.account, req.amount)), isMollieError, describeError,
      );
      if (known) return known;
      const madeAt = idTime(req.attemptId);
      if (madeAt && Date.now() - madeAt.getTime() > KEY_KEPT_MS) return { found: false };
      return statusFromRepeat(await pay(account, req), 'Mollie');
    },

    /**
     * POST /v2/payments/{id}/refunds under our refund id as Idempotency-Key. Mollie accepts a refund
     * (queued, pending, processing) and pays it out later: accepted is the success of the call; a
     * refund Mollie fails afterwards arrives with the payment's webhook and reverses it.
     */
    async refund(req: RefundRequest): Promise<RefundResult> {
      const amount = toMollieAmount(req.amount, req.currency);
      if (!req.providerPaymentId || !amount) {
        return { outcome: 'hard_decline', providerRefundId: null, providerCode: null, providerMessage: 'No Mollie payment id or amount to refund' };
      }
      const account = await clients.forAccount(req.account.id);
      if (!account) return { outcome: 'provider_unavailable', providerRefundId: null, providerCode: null, providerMessage: CONDITIONS.missing_credentials.message };
      const paymentId = req.providerPaymentId;
      try {
        const r = await account.call(req.signal, (c) => c.paymentRefunds.create({
          paymentId, amount, description: `Refund ${req.refundId}`, metadata: { refund_id: req.refundId }, idempotencyKey: req.refundId,
        })) as { id?: string; status?: string };
        const id = answerId('Mollie', 'refund', r);
        const status = answerStatus('Mollie', 'refund', r, REFUND_STATUSES);
        if (status === 'failed' || status === 'canceled') {
          return { outcome: 'hard_decline', providerRefundId: id, providerCode: status, providerMessage: `Mollie ${status} the refund` };
        }
        return { outcome: 'success', providerRefundId: id, providerCode: status, providerMessage: 'Accepted by Mollie; its webhook confirms the outcome' };
      } catch (err) {
        return { ...refusal(err), providerRefundId: null };
      }
    },

    /** The first page of the payment list: harmless, and answered only for a valid API key. */
    async checkCredentials(ref: ProviderAccountRef): Promise<CredentialCheck> {
      const account = await clients.forAccount(ref.id);
      if (!account) return { ok: false, providerCode: null, message: CONDITIONS.missing_credentials.message };
      return credentialCheck(() => account.call(AbortSignal.timeout(15_000), (c) => c.payments.page({ limit: 1 })), isMollieError, describeError);
    },

    readNotification: (req) => readMollieNotification(clients, req),
    notificationHint: mollieNotificationHint,

    // Chargebacks, read only: the sync's list (disputes.ts); Mollie takes no answer through its API.
    ...createMollieDisputes(clients),

    async listSettlements(req) {
      const account = await clients.forAccount(req.account.id);
      if (!account) throw new Error(CONDITIONS.missing_credentials.message);
      return account.call(req.signal, (c) => listMollieSettlements(c, req.since));
    },
  };
}
