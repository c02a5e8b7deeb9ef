// Adyen's standard notifications read for the connector interface
// (https://docs.adyen.com/development-resources/webhooks): a JSON batch {live, notificationItems:
// [{NotificationRequestItem}]}, each item signed with the account's HMAC key and checked with the
// library's hmacValidator, plus HTTP basic auth when the account stores a user and password for it.
// The events payments acts on become notification subjects; refusals go through errors.ts.
import { timingSafeEqual } from 'node:crypto';
import type { Types } from '@adyen/api-library';
import { adyenSdk } from './client.js';
import { disputeOf, isDisputeEvent } from './disputes.js';
import { ruleFor } from './errors.js';
import { failed } from '../outcome-mapping.js';
import type { AuthorizeResult, CredentialSource, HoldResult, NotificationCheck, NotificationRequest, NotificationSubject, ProviderNotification } from '../types.js';

type Item = Types.notification.NotificationRequestItem;

/** What Adyen must receive back for a batch it will not send again. */
export const ADYEN_ACKNOWLEDGEMENT = '[accepted]';

const IGNORED: NotificationSubject = { kind: 'ignored' };

/** The failure message of a refund Adyen reversed (REFUNDED_REVERSED). */
export const REFUNDED_REVERSED_REASON = 'The provider accepted the refund, then the customer\'s bank returned the refunded funds (Adyen REFUNDED_REVERSED).';

/**
 * Adyen may send an event more than once; the same pspReference and eventCode with the other
 * `success` is a different event (a failed AUTHORISATION can be followed by a successful one), so
 * the three together are the de-duplication key.
 */
export function adyenEventId(item: Pick<Item, 'pspReference' | 'eventCode' | 'success'>): string {
  return `${item.pspReference}:${item.eventCode}:${item.success}`;
}

function hold(item: Item, label: string, ok: boolean): HoldResult {
  return ok
    ? { outcome: 'success', providerCode: item.eventCode, providerMessage: `${label} confirmed by Adyen` }
    : { outcome: 'hard_decline', providerCode: item.eventCode, providerMessage: `${label} failed at Adyen${item.reason ? `: ${item.reason}` : ''}` };
}

function authorisation(item: Item): AuthorizeResult {
  if (item.success === 'true') {
    // A notification quotes no fee: payments keeps the one quoted when the attempt was answered.
    return { outcome: 'success', providerPaymentId: item.pspReference, providerCode: 'Authorised', providerMessage: 'Authorised', fee: 0n };
  }
  // A failed AUTHORISATION's reason is the refusalReason text of the refusal tables.
  const rule = ruleFor({ resultCode: 'Refused', refusalReason: item.reason });
  return failed(rule, { id: item.pspReference, code: 'Refused', message: item.reason ?? null });
}

/**
 * What one item says. Modifications carry the payment's pspReference as originalReference and
 * echo the reference the connector sent (our operation or refund id) as merchantReference.
 */
export function subjectOf(item: Item, occurredAt: Date = new Date(item.eventDate)): NotificationSubject {
  // A dispute's events name the dispute (pspReference) and the payment (originalReference): disputes.ts.
  if (isDisputeEvent(item.eventCode)) return { kind: 'dispute', dispute: disputeOf(item, occurredAt) };
  const ok = item.success === 'true';
  const payment = item.originalReference ?? item.pspReference;
  switch (item.eventCode) {
    case 'AUTHORISATION':
      return { kind: 'payment', attemptId: item.merchantReference || null, providerPaymentId: item.pspReference, result: authorisation(item) };
    case 'CAPTURE':
      return { kind: 'capture', providerPaymentId: payment, result: hold(item, 'Capture', ok) };
    case 'CAPTURE_FAILED':
      return { kind: 'capture', providerPaymentId: payment, result: hold(item, 'Capture', false) };
    case 'CANCELLATION':
      return { kind: 'cancel', providerPaymentId: payment, result: hold(item, 'Cancellation', ok) };
    case 'REFUND':
    case 'REFUND_FAILED': {
      const done = item.eventCode === 'REFUND' && ok;
      const h = hold(item, 'Refund', done);
      return { kind: 'refund', refundId: item.merchantReference || null, providerRefundId: item.pspReference, result: { ...h, providerRefundId: item.pspReference } };
    }
    case 'REFUNDED_REVERSED':
      // The shopper's bank sent the refunded funds back after Adyen had accepted the refund: for
      // the merchant the same as REFUND_FAILED, with the reason that says what happened.
      return {
        kind: 'refund', refundId: item.merchantReference || null, providerRefundId: item.pspReference,
        result: {
          outcome: 'hard_decline', providerRefundId: item.pspReference, providerCode: item.eventCode,
          providerMessage: 'Refund reversed at Adyen', reversalReason: REFUNDED_REVERSED_REASON,
        },
      };
    default:
      return IGNORED;
  }
}

function equalSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** With a stored basic_auth_user and basic_auth_password, Adyen's request must carry them. */
function basicAuthRefusal(values: Record<string, string>, header: string | undefined): string | undefined {
  const user = values.basic_auth_user;
  const password = values.basic_auth_password;
  if (!user || !password) return undefined;
  const sent = /^Basic (.+)$/i.exec(header ?? '')?.[1];
  if (!sent) return 'The notification has no basic authentication.';
  return equalSecret(Buffer.from(sent, 'base64').toString('utf8'), `${user}:${password}`) ? undefined : 'The notification\'s basic authentication is wrong.';
}

/**
 * Verifies a batch and reads its items: all or nothing, so a forged item refuses the batch (Adyen
 * then retries it, and only a genuine one is acknowledged). An item for another merchant account of
 * the same company is acknowledged and ignored. The refusal reasons never quote a key or signature.
 */
export async function readAdyenNotification(credentials: CredentialSource, req: NotificationRequest): Promise<NotificationCheck> {
  const creds = await credentials.get(req.account.id);
  const hmacKey = creds?.values.hmac_key;
  if (!creds || !hmacKey) return { ok: false, reason: 'The account has no HMAC key.' };
  const authRefused = basicAuthRefusal(creds.values, req.headers.authorization);
  if (authRefused) return { ok: false, reason: authRefused };
  let body: { live?: string; notificationItems?: Array<{ NotificationRequestItem?: Item }> };
  try {
    body = JSON.parse(req.rawBody.toString('utf8')) as typeof body;
  } catch {
    return { ok: false, reason: 'The body is not JSON.' };
  }
  const items = Array.isArray(body?.notificationItems) ? body.notificationItems.map((n) => n?.NotificationRequestItem) : undefined;
  if (!items || items.length === 0 || items.some((i) => !i?.pspReference || !i.eventCode || !i.amount)) {
    return { ok: false, reason: 'The body is not an Adyen notification batch.' };
  }
  if ((body.live === 'true') !== (creds.mode === 'live')) {
    return { ok: false, reason: `A ${body.live === 'true' ? 'live' : 'test'} notification cannot be for a ${creds.mode} account.` };
  }
  const validator = new (await adyenSdk.load()).hmacValidator();
  const notifications: ProviderNotification[] = [];
  for (const item of items as Item[]) {
    let valid = false;
    try {
      valid = validator.validateHMAC(item, hmacKey);
    } catch {
      return { ok: false, reason: 'A notification item has no HMAC signature.' };
    }
    if (!valid) return { ok: false, reason: 'A notification item\'s HMAC signature does not verify with the account\'s HMAC key.' };
    const ours = item.merchantAccountCode === creds.values.merchant_account;
    const eventDate = new Date(item.eventDate);
    const at = Number.isNaN(eventDate.getTime()) ? new Date() : eventDate;
    notifications.push({ eventId: adyenEventId(item), occurredAt: at, subject: ours ? subjectOf(item, at) : IGNORED });
  }
  return { ok: true, notifications, acknowledgement: ADYEN_ACKNOWLEDGEMENT };
}
