// Mollie's webhooks read for the connector interface (https://docs.mollie.com/reference/webhooks):
// Mollie POSTs `id=tr_…` form-encoded and unsigned, so the post is only a hint. The payment is
// fetched from Mollie with the account's own API key, its refunds embedded, and that fetched state
// decides. An id Mollie does not know under this key (made up, or another account's) is answered
// 200 with nothing recorded, as Mollie's reference asks so as not to tell a prober which ids
// exist. The de-duplication key is the state itself (`tr_…:paid`, `re_…:refunded`): a replay, or
// Mollie's repeat, finds the same state recorded and changes nothing; a real change is a new key.
// Anyone may post, so receiving fetches only ids of the account's own payments, coalesced and
// bounded per account (provider-notifications/fetch-gate.ts), by way of mollieNotificationHint.
import { serviceError } from '../../contract/index.js';
import type { MollieClients } from './client.js';
import { fromPayment, isMollieError, metadataOf, type MolliePayment, type MollieRefund } from './outcomes.js';
import { ruleFor } from './errors.js';
import { chargebackNotification, type MollieChargeback } from './disputes.js';
import type { NotificationCheck, NotificationHint, NotificationRequest, ProviderNotification, RefundResult } from '../types.js';

/** How long a notification may wait for Mollie's answer; Mollie gives up on a webhook after 15 seconds. */
const FETCH_TIMEOUT_MS = 10_000;

/** The SDK's PaymentEmbed is a runtime enum: naming its value would load the SDK before client.ts replaces its transport. */
const EMBED_REFUNDS: unknown = { embed: ['refunds', 'chargebacks'] };

/** Mollie's payment ids: `tr_` and an alphanumeric id. */
const PAYMENT_ID = /^tr_[A-Za-z0-9]{2,64}$/;

/** The payment id a delivery names, or undefined when the body is not Mollie's `id=tr_…`. */
export function postedPaymentId(body: Buffer): string | undefined {
  const id = new URLSearchParams(body.toString('utf8')).get('id') ?? '';
  return PAYMENT_ID.test(id) ? id : undefined;
}

/** Mollie's posts are hints: receiving coalesces and bounds the fetches they cause. */
export const mollieNotificationHint: NotificationHint = {
  paymentIdOf: postedPaymentId,
  bodyFor: (paymentId) => Buffer.from(new URLSearchParams({ id: paymentId }).toString()),
};

/** A refund's settled status as the connector interface's refund result; undefined while Mollie still works on it. */
function refundResult(r: MollieRefund): RefundResult | undefined {
  const id = r.id ?? null;
  if (r.status === 'refunded') return { outcome: 'success', providerRefundId: id, providerCode: 'refunded', providerMessage: 'Refunded by Mollie' };
  if (r.status === 'failed' || r.status === 'canceled') {
    const reason = `The refund was ${r.status === 'failed' ? 'failed' : 'cancelled'} at Mollie after it was accepted; the funds stay with the merchant`;
    return { outcome: 'hard_decline', providerRefundId: id, providerCode: r.status, providerMessage: reason, reversalReason: reason };
  }
  return undefined;
}

/** What the fetched payment says: its own state, each of its refunds that Mollie has settled, and its chargebacks. */
export function notificationsOf(p: MolliePayment & { _embedded?: { chargebacks?: MollieChargeback[] } }, at: Date): ProviderNotification[] {
  const id = p.id!;
  const decides = p.status === 'paid' || p.status === 'authorized' || ruleFor({ status: p.status }).outcome !== 'unknown';
  const out: ProviderNotification[] = [{
    eventId: `${id}:${p.status ?? 'unknown'}`,
    occurredAt: at,
    // A notification quotes no fee: payments keeps the one quoted when the attempt was answered.
    subject: decides
      ? { kind: 'payment', attemptId: metadataOf(p, 'attempt_id'), providerPaymentId: id, result: fromPayment(p, 0n) }
      : { kind: 'ignored' },
  }];
  for (const r of p._embedded?.refunds ?? []) {
    const result = r.id ? refundResult(r) : undefined;
    if (!result) continue;
    out.push({ eventId: `${r.id}:${r.status}`, occurredAt: at, subject: { kind: 'refund', refundId: metadataOf(r, 'refund_id'), providerRefundId: r.id!, result } });
  }
  for (const c of p._embedded?.chargebacks ?? []) {
    if (c.id) out.push(chargebackNotification({ ...c, paymentId: c.paymentId ?? id }, metadataOf(p, 'attempt_id'), at));
  }
  return out;
}

/**
 * Reads a delivery by asking Mollie. Mollie unreachable is a 503 (provider_unavailable): Mollie
 * then posts again later, and nothing was recorded.
 */
export async function readMollieNotification(clients: MollieClients, req: NotificationRequest): Promise<NotificationCheck> {
  const id = postedPaymentId(req.rawBody);
  if (!id) return { ok: false, reason: 'The body is not Mollie\'s id=tr_… form.' };
  const account = await clients.forAccount(req.account.id);
  if (!account) return { ok: false, reason: 'The account has no Mollie API key to fetch the payment with.' };
  let payment: MolliePayment;
  try {
    payment = await account.call(AbortSignal.timeout(FETCH_TIMEOUT_MS), (c) => c.payments.get(id, EMBED_REFUNDS as Parameters<typeof c.payments.get>[1])) as MolliePayment;
  } catch (err) {
    if (isMollieError(err) && (err.statusCode === 404 || err.statusCode === 410)) return { ok: true, notifications: [] };
    throw serviceError('provider_unavailable', 'Mollie could not be asked for the payment; Mollie will post the notification again.');
  }
  if (payment?.id !== id) return { ok: true, notifications: [] };
  return { ok: true, notifications: notificationsOf(payment, new Date()) };
}
