// Checkout.com's webhooks read for the connector interface
// (https://www.checkout.com/docs/developer-resources/webhooks): the Cko-Signature header is the
// hex HMAC-SHA256 of the raw body under the signature key of the account's webhook, checked in
// constant time; then the payment events payments acts on become notification subjects, declines
// through the tables of errors.ts. Checkout.com signs no timestamp: a replayed delivery carries the
// event id already recorded, which is how it changes nothing.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { failed } from '../outcome-mapping.js';
import { CONDITIONS } from './errors.js';
import { declined } from './outcomes.js';
import { disputeEvent, isDisputeEvent, type CheckoutDispute } from './disputes.js';
import type {
  AuthorizeResult, CredentialSource, HoldResult, NotificationCheck, NotificationRequest, NotificationSubject,
} from '../types.js';

/** The fields of an event's `data` this connector reads (a payment's, with the action's for actions). */
interface EventData {
  id?: string;
  action_id?: string;
  reference?: string;
  response_code?: string;
  response_summary?: string;
  metadata?: Record<string, string>;
}

interface CheckoutEvent {
  id?: string;
  type?: string;
  created_on?: string;
  /** Newer event versions date the event here rather than in created_on. */
  timestamp?: string;
  data?: EventData;
}

const IGNORED: NotificationSubject = { kind: 'ignored' };

/** The Cko-Signature Checkout.com would send for `body` under `key` (also what the stand-in signs with). */
export function checkoutSignature(body: Buffer | string, key: string): string {
  return createHmac('sha256', key).update(body).digest('hex');
}

function signatureMatches(body: Buffer, key: string, sent: string): boolean {
  const expected = Buffer.from(checkoutSignature(body, key), 'hex');
  const given = /^[0-9a-fA-F]+$/.test(sent) ? Buffer.from(sent, 'hex') : Buffer.alloc(0);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Our attempt id: the payment's reference, or its metadata when a reference was changed. */
function attemptOf(d: EventData): string | null {
  return d.metadata?.attempt_id || d.reference || null;
}

function hold(ok: boolean, type: string, label: string, d: EventData): HoldResult {
  return ok
    ? { outcome: 'success', providerCode: type, providerMessage: `${label} confirmed by Checkout.com` }
    : {
      outcome: 'hard_decline', providerCode: d.response_code ?? type,
      providerMessage: `${label} declined at Checkout.com${d.response_summary ? `: ${d.response_summary}` : ''}`,
    };
}

function approval(d: EventData): AuthorizeResult {
  // A notification quotes no fee: payments keeps the one quoted when the attempt was answered.
  return { outcome: 'success', providerPaymentId: d.id ?? null, providerCode: d.response_code ?? 'payment_approved', providerMessage: 'Approved', fee: 0n };
}

/**
 * What one event says. Action events (captures, voids, refunds) carry the payment's id as `id`,
 * the action's as `action_id`, and the reference the connector sent with the action.
 */
export function subjectOf(e: CheckoutEvent, occurredAt = new Date()): NotificationSubject {
  // A dispute's events carry the dispute (dsp_…) with its payment's id and reference: disputes.ts.
  if (isDisputeEvent(e.type ?? '')) {
    const dispute = (e.data ?? {}) as CheckoutDispute;
    return dispute.id ? { kind: 'dispute', dispute: disputeEvent(e.type!, dispute, occurredAt) } : IGNORED;
  }
  const d = e.data ?? {};
  const payment = d.id;
  if (!payment) return IGNORED;
  const type = e.type ?? '';
  switch (type) {
    case 'payment_approved':
      return { kind: 'payment', attemptId: attemptOf(d), providerPaymentId: payment, result: approval(d) };
    case 'payment_declined':
    case 'payment_authentication_failed':
      return { kind: 'payment', attemptId: attemptOf(d), providerPaymentId: payment, result: declined({ ...d, status: 'Declined' }) };
    case 'payment_expired':
    case 'payment_canceled':
      return { kind: 'payment', attemptId: attemptOf(d), providerPaymentId: payment, result: failed(CONDITIONS.cancelled, { id: payment, code: type }) };
    case 'payment_captured':
    case 'payment_capture_declined':
      return { kind: 'capture', providerPaymentId: payment, result: hold(type === 'payment_captured', type, 'Capture', d) };
    case 'payment_voided':
    case 'payment_void_declined':
      return { kind: 'cancel', providerPaymentId: payment, result: hold(type === 'payment_voided', type, 'Void', d) };
    case 'payment_refunded':
    case 'payment_refund_declined': {
      const action = d.action_id ?? payment;
      const h = hold(type === 'payment_refunded', type, 'Refund', d);
      return { kind: 'refund', refundId: d.reference || null, providerRefundId: action, result: { ...h, providerRefundId: action } };
    }
    default:
      // payment_pending, payment_paid, payment_capture_pending, payment_refund_pending, … decide nothing.
      return IGNORED;
  }
}

/**
 * Verifies a delivery and reads its event. The refusal reasons are our own words: neither the key
 * nor the signature is ever quoted.
 */
export async function readCheckoutNotification(credentials: CredentialSource, req: NotificationRequest): Promise<NotificationCheck> {
  const key = (await credentials.get(req.account.id))?.values.webhook_signature_key;
  if (!key) return { ok: false, reason: 'The account has no webhook signature key.' };
  const sent = req.headers['cko-signature'];
  if (!sent) return { ok: false, reason: 'The Cko-Signature header is missing.' };
  if (!signatureMatches(req.rawBody, key, sent)) {
    return { ok: false, reason: 'The Cko-Signature does not verify with the account\'s webhook signature key.' };
  }
  let event: CheckoutEvent;
  try {
    event = JSON.parse(req.rawBody.toString('utf8')) as CheckoutEvent;
  } catch {
    return { ok: false, reason: 'The body is not JSON.' };
  }
  if (!event || typeof event.id !== 'string' || typeof event.type !== 'string') {
    return { ok: false, reason: 'The body is not a Checkout.com event.' };
  }
  const dated = new Date(event.created_on ?? event.timestamp ?? '');
  const at = Number.isNaN(dated.getTime()) ? new Date() : dated;
  return { ok: true, notifications: [{ eventId: event.id, occurredAt: at, subject: subjectOf(event, at) }] };
}
