// PayPal's webhooks read for the connector interface
// (https://developer.paypal.com/api/rest/webhooks/rest/): each delivery is verified by PayPal
// itself (POST /v1/notifications/verify-webhook-signature with the PAYPAL-* transmission headers,
// the account's webhook id and the event exactly as received), then the events payments acts on
// become notification subjects. An approved order is completed here (captured or authorized,
// completion.ts) while the payment certainly still waits for the customer. A replayed delivery
// carries the event id already recorded, which is how it changes nothing.
import { failed } from '../outcome-mapping.js';
import type { PayPalAccount, PayPalClients } from './client.js';
import { completeOrder, webhookMayComplete } from './completion.js';
import { disputeOf, type PayPalDispute } from './disputes.js';
import { CONDITIONS } from './errors.js';
import { describeError, fromError, fromOrder, isPayPalError, type PayPalOrder } from './outcomes.js';
import type {
  AuthorizeResult, HoldResult, NotificationCheck, NotificationRequest, NotificationSubject, RoutedAccount,
} from '../types.js';

/** An event's resource as PayPal posts it (snake_case): an order, a capture, an authorization or a refund. */
interface Resource {
  id?: string;
  status?: string;
  intent?: string;
  custom_id?: string;
  purchase_units?: Array<{ custom_id?: string }>;
  supplementary_data?: { related_ids?: { order_id?: string; authorization_id?: string } };
}

interface PayPalEvent {
  id?: string;
  event_type?: string;
  create_time?: string;
  resource?: Resource;
}

const IGNORED: NotificationSubject = { kind: 'ignored' };
const TRANSMISSION_HEADERS = ['paypal-transmission-id', 'paypal-transmission-time', 'paypal-transmission-sig', 'paypal-cert-url', 'paypal-auth-algo'] as const;

/** A notification quotes no fee: payments keeps the one quoted when the attempt was answered. */
const NO_FEE: RoutedAccount = { providerCode: 'paypal', id: '', feeFixed: 0n, feeBps: 0, latencyMs: 0 };

/** Asks PayPal whether it sent this delivery to this account's webhook. */
async function verified(account: PayPalAccount, webhookId: string, req: NotificationRequest, signal: AbortSignal): Promise<boolean> {
  const h = req.headers;
  const fields = {
    auth_algo: h['paypal-auth-algo'], cert_url: h['paypal-cert-url'], transmission_id: h['paypal-transmission-id'],
    transmission_sig: h['paypal-transmission-sig'], transmission_time: h['paypal-transmission-time'], webhook_id: webhookId,
  };
  // The event goes back byte for byte: PayPal checks its checksum of the body as it sent it.
  const body = `${JSON.stringify(fields).slice(0, -1)},"webhook_event":${req.rawBody.toString('utf8')}}`;
  const rb = account.client.getRequestBuilderFactory()('POST', '/v1/notifications/verify-webhook-signature');
  rb.header('Content-Type', 'application/json');
  rb.text(body);
  rb.authenticate([{ oauth2: true }]);
  const res = await rb.callAsText({ abortSignal: signal });
  return (JSON.parse(res.result) as { verification_status?: string }).verification_status === 'SUCCESS';
}

const hold = (ok: boolean, type: string, label: string): HoldResult => ok
  ? { outcome: 'success', providerCode: type, providerMessage: `${label} confirmed by PayPal` }
  : { outcome: 'hard_decline', providerCode: type, providerMessage: `${label} declined at PayPal` };

const approved = (id: string, code: string): AuthorizeResult => ({ outcome: 'success', providerPaymentId: id, providerCode: code, providerMessage: 'Approved', fee: 0n });

/** An approved order: completed now, if the payment still waits for the customer; otherwise reconciliation's. */
async function approval(account: PayPalAccount, r: Resource, signal: AbortSignal): Promise<NotificationSubject> {
  const attemptId = r.purchase_units?.[0]?.custom_id;
  if (!r.id || !attemptId || !webhookMayComplete(attemptId)) return IGNORED;
  const manual = r.intent === 'AUTHORIZE';
  const order: PayPalOrder = { id: r.id, status: 'APPROVED', intent: r.intent };
  let result: AuthorizeResult;
  try {
    result = fromOrder(await completeOrder(account, order, attemptId, signal), NO_FEE, 0n, manual);
  } catch (err) {
    if (!isPayPalError(err)) throw err;
    const { rule } = describeError(err);
    // No answer: PayPal redelivers a refused notification, and the retry completes it under the same request id.
    if (rule.outcome === 'unknown' || rule.outcome === 'timeout') throw err;
    result = fromError(err, r.id);
  }
  return { kind: 'payment', attemptId, providerPaymentId: r.id, result };
}

/** What one event says about the payments of this service. */
export async function subjectOf(account: PayPalAccount, e: PayPalEvent, signal: AbortSignal): Promise<NotificationSubject> {
  const r = e.resource ?? {};
  const type = e.event_type ?? '';
  const orderId = r.supplementary_data?.related_ids?.order_id;
  const fromAuthorization = Boolean(r.supplementary_data?.related_ids?.authorization_id);
  switch (type) {
    case 'CHECKOUT.ORDER.APPROVED':
      return approval(account, r, signal);
    case 'PAYMENT.CAPTURE.COMPLETED':
    case 'PAYMENT.CAPTURE.DENIED':
    case 'PAYMENT.CAPTURE.DECLINED': {
      if (!orderId) return IGNORED;
      const ok = type === 'PAYMENT.CAPTURE.COMPLETED';
      // A capture of an authorization is the merchant's capture; the order's own capture is the payment.
      if (fromAuthorization) return { kind: 'capture', providerPaymentId: orderId, result: hold(ok, type, 'Capture') };
      const result = ok ? approved(orderId, type) : failed(type === 'PAYMENT.CAPTURE.DENIED' ? CONDITIONS.denied : CONDITIONS.declined, { id: orderId, code: type });
      return { kind: 'payment', attemptId: r.custom_id ?? null, providerPaymentId: orderId, result };
    }
    case 'PAYMENT.AUTHORIZATION.CREATED':
      return orderId ? { kind: 'payment', attemptId: r.custom_id ?? null, providerPaymentId: orderId, result: approved(orderId, type) } : IGNORED;
    case 'PAYMENT.AUTHORIZATION.VOIDED':
      return orderId ? { kind: 'cancel', providerPaymentId: orderId, result: hold(true, type, 'Void') } : IGNORED;
    case 'CUSTOMER.DISPUTE.CREATED':
    case 'CUSTOMER.DISPUTE.UPDATED':
    case 'CUSTOMER.DISPUTE.RESOLVED': {
      // The resource is the dispute as it stands (disputes.ts), dated by its own update time.
      const dispute = r as PayPalDispute;
      return dispute.dispute_id ? { kind: 'dispute', dispute: disputeOf(dispute, new Date(e.create_time ?? Date.now())) } : IGNORED;
    }
    case 'PAYMENT.CAPTURE.REFUNDED':
      // The resource is the refund; its custom_id is our refund id, as the connector sent it.
      return r.id ? { kind: 'refund', refundId: r.custom_id ?? null, providerRefundId: r.id, result: { ...hold(true, type, 'Refund'), providerRefundId: r.id } } : IGNORED;
    default:
      // CHECKOUT.ORDER.COMPLETED, PAYMENT.CAPTURE.PENDING, PAYMENT.CAPTURE.REVERSED, … decide nothing here.
      return IGNORED;
  }
}

/**
 * Verifies a delivery with PayPal and reads its event. The refusal reasons are our own words:
 * neither the webhook id nor the transmission signature is ever quoted.
 */
export async function readPayPalNotification(clients: PayPalClients, req: NotificationRequest): Promise<NotificationCheck> {
  const account = await clients.forAccount(req.account.id);
  if (!account?.webhookId) return { ok: false, reason: 'The account has no PayPal webhook id.' };
  if (TRANSMISSION_HEADERS.some((h) => !req.headers[h])) return { ok: false, reason: 'The PAYPAL-TRANSMISSION headers are missing.' };
  let event: PayPalEvent;
  try {
    event = JSON.parse(req.rawBody.toString('utf8')) as PayPalEvent;
  } catch {
    return { ok: false, reason: 'The body is not JSON.' };
  }
  if (!event || typeof event.id !== 'string' || typeof event.event_type !== 'string') {
    return { ok: false, reason: 'The body is not a PayPal event.' };
  }
  const signal = AbortSignal.timeout(15_000);
  try {
    if (!(await verified(account, account.webhookId, req, signal))) {
      return { ok: false, reason: 'PayPal does not confirm that it sent this notification to the account\'s webhook.' };
    }
    const subject = await subjectOf(account, event, signal);
    const at = new Date(event.create_time ?? '');
    return { ok: true, notifications: [{ eventId: event.id, occurredAt: Number.isNaN(at.getTime()) ? new Date() : at, subject }] };
  } catch (err) {
    if (!isPayPalError(err) && !(err instanceof SyntaxError)) throw err;
    // Refused now, delivered again by PayPal later: nothing was decided.
    return { ok: false, reason: 'PayPal could not be asked about this notification; it will be delivered again.' };
  }
}
