// Stripe's webhook events read for the connector interface: the Stripe-Signature header verified
// with the account's webhook signing secret by the SDK (Stripe.webhooks.constructEvent, 300 s
// tolerance), then the events payments acts on normalised to notification subjects. Failures go
// through the table in errors.ts, as an answer to confirm would.
import type Stripe from 'stripe';
import { failed } from '../outcome-mapping.js';
import { stripeSdk } from './client.js';
import { ruleFor } from './errors.js';
import { approval, declined } from './outcomes.js';
import { fromPayout } from './payouts.js';
import { disputeOf } from './disputes.js';
import type {
  AuthorizeResult, CredentialSource, NotificationCheck, NotificationRequest, NotificationSubject, RefundResult,
} from '../types.js';

/** Stripe's own tolerance between the signed timestamp and now (its SDK's default), against replays of old deliveries. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const IGNORED: NotificationSubject = { kind: 'ignored' };
// A notification quotes no fee: payments keeps the one quoted when the attempt was answered.
const NO_FEE = 0n;

/** The attempt a PaymentIntent was created for: the connector sends it as metadata[attempt_id]. */
function attemptOf(pi: Stripe.PaymentIntent): string | null {
  return pi.metadata?.attempt_id || null;
}

/** A PaymentIntent its last_payment_error declined; without one, a decline nobody explained. */
function declinedIntent(pi: Stripe.PaymentIntent): AuthorizeResult {
  const e = pi.last_payment_error;
  return e ? declined(pi, e) : failed(ruleFor({ type: 'card_error' }), { id: pi.id });
}

/** A Refund's outcome; pending and requires_action decide nothing yet (the answer to the create said as much). */
function refundResult(r: Stripe.Refund): RefundResult | undefined {
  if (r.status === 'succeeded') {
    return { outcome: 'success', providerRefundId: r.id, providerCode: r.status, providerMessage: 'Refund succeeded' };
  }
  if (r.status === 'failed' || r.status === 'canceled') {
    return {
      outcome: 'hard_decline', providerRefundId: r.id, providerCode: r.failure_reason ?? r.status,
      providerMessage: `Refund ${r.status}${r.failure_reason ? `: ${r.failure_reason}` : ''}`,
    };
  }
  return undefined;
}

/** What one verified event says; events payments has no use for are `ignored` (still acknowledged). */
export function subjectOf(event: Stripe.Event): NotificationSubject {
  switch (event.type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.amount_capturable_updated': {
      const pi = event.data.object;
      // amount_capturable_updated also fires when a hold shrinks; only a held PaymentIntent is an approval.
      if (event.type === 'payment_intent.amount_capturable_updated' && pi.status !== 'requires_capture') return IGNORED;
      return { kind: 'payment', attemptId: attemptOf(pi), providerPaymentId: pi.id, result: approval(pi, NO_FEE) };
    }
    case 'payment_intent.payment_failed': {
      const pi = event.data.object;
      return { kind: 'payment', attemptId: attemptOf(pi), providerPaymentId: pi.id, result: declinedIntent(pi) };
    }
    case 'payment_intent.canceled': {
      const pi = event.data.object;
      return {
        kind: 'cancel', providerPaymentId: pi.id,
        result: { outcome: 'success', providerCode: pi.cancellation_reason ?? 'canceled', providerMessage: 'Canceled at Stripe' },
      };
    }
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed':
    case 'charge.refund.updated': {
      const r = event.data.object;
      const result = refundResult(r);
      return result ? { kind: 'refund', refundId: r.metadata?.refund_id || null, providerRefundId: r.id, result } : IGNORED;
    }
    case 'payout.paid':
    case 'payout.failed':
    case 'payout.canceled':
    case 'payout.updated': {
      // Read as the status query reads the payout (fromPayout): one mapping of its status and failure_code.
      const po = event.data.object;
      return { kind: 'payout', payoutId: po.metadata?.payout_id || null, providerPayoutId: po.id, result: fromPayout(po) };
    }
    case 'charge.dispute.created':
    case 'charge.dispute.updated':
    case 'charge.dispute.closed':
    case 'charge.dispute.funds_withdrawn':
    case 'charge.dispute.funds_reinstated':
      // Each carries the Dispute as it stands; its status and balance transactions say the rest (disputes.ts).
      return { kind: 'dispute', dispute: disputeOf(event.data.object, new Date(event.created * 1000)) };
    default:
      // charge.refunded among them: each of its refunds also arrives as a Refund event, read above.
      return IGNORED;
  }
}

/**
 * Verifies a delivery and reads its event. The refusal reasons are our own words: neither the
 * secret nor the signature is ever quoted.
 */
export async function readStripeNotification(credentials: CredentialSource, req: NotificationRequest): Promise<NotificationCheck> {
  const secret = (await credentials.get(req.account.id))?.values.webhook_secret;
  if (!secret) return { ok: false, reason: 'The account has no webhook signing secret.' };
  const header = req.headers['stripe-signature'];
  if (!header) return { ok: false, reason: 'The Stripe-Signature header is missing.' };
  const sdk = await stripeSdk.load();
  let event: Stripe.Event;
  try {
    event = sdk.webhooks.constructEvent(req.rawBody, header, secret, SIGNATURE_TOLERANCE_SECONDS);
  } catch (err) {
    if (err instanceof sdk.errors.StripeSignatureVerificationError) {
      return { ok: false, reason: 'The Stripe-Signature does not verify with the account\'s webhook secret, or is too old.' };
    }
    return { ok: false, reason: 'The body is not a Stripe event.' };
  }
  return {
    ok: true,
    notifications: [{ eventId: event.id, occurredAt: new Date(event.created * 1000), subject: subjectOf(event) }],
  };
}
