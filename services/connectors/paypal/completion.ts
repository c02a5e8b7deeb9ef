// Completing an order the customer approved: PayPal moves no money on approval; the merchant
// captures the order (intent CAPTURE) or authorizes it (AUTHORIZE, captured later through the
// authorization). Whoever learns of the approval first, the webhook or the status query, completes
// it under the same PayPal-Request-Id, so an order is completed at most once.
import { idTime } from '../../platform/ids.js';
import type { PayPalAccount } from './client.js';
import { describeError, isPayPalError, type PayPalOrder } from './outcomes.js';
import { completionRequestId } from './request.js';

/**
 * How long after its attempt the customer may approve: the customer action's expiry, which the
 * connector sets (docs/decisions/2026-11-27-paypals-connector.md, "PayPal's connector"). Reconciliation asks PayPal once it has passed.
 */
export const APPROVAL_WINDOW_MS = 30 * 60_000;

/** A webhook completes an approval only this long before the window ends: later ones are reconciliation's. */
const WEBHOOK_MARGIN_MS = 60_000;

/**
 * A status query this long after the window finds an order nobody approved lapsed: its answer was
 * lost (the customer never got the link) or the customer left, and nothing is held. Before it, the
 * customer action's expiry (provider-actions.ts) releases and expires the payment as for every provider.
 */
const LAPSED_AFTER_MS = APPROVAL_WINDOW_MS + 5 * 60_000;

export const hasLapsed = (attemptId: string, now = new Date()): boolean => {
  const made = idTime(attemptId);
  return made !== undefined && now.getTime() - made.getTime() > LAPSED_AFTER_MS;
};

export const approvalExpiry = (attemptId: string, now = new Date()): Date =>
  new Date((idTime(attemptId) ?? now).getTime() + APPROVAL_WINDOW_MS);

/**
 * May a webhook still complete this attempt's approved order? Only while the payment certainly
 * still waits for the customer: after the window, reconciliation may have expired it, and an
 * approval then must take nothing.
 */
export function webhookMayComplete(attemptId: string | undefined, now = new Date()): boolean {
  if (!attemptId || !idTime(attemptId)) return false;
  return now.getTime() < approvalExpiry(attemptId, now).getTime() - WEBHOOK_MARGIN_MS;
}

const ALREADY = new Set(['ORDER_ALREADY_CAPTURED', 'ORDER_ALREADY_AUTHORIZED']);

/**
 * The order after completion: captured or authorized under `<attempt>-capture` / `<attempt>-authorize`,
 * or, completed already under another request id, as PayPal now shows it. An order that is not
 * APPROVED is returned as it is. Errors other than "already" are thrown for the caller's tables.
 */
export async function completeOrder(account: PayPalAccount, order: PayPalOrder, attemptId: string, signal: AbortSignal): Promise<PayPalOrder> {
  if (order.status !== 'APPROVED' || !order.id) return order;
  const id = order.id;
  const paypalRequestId = completionRequestId(attemptId, order.intent);
  const prefer = 'return=representation';
  try {
    const res = order.intent === 'AUTHORIZE'
      ? await account.orders.authorizeOrder({ id, paypalRequestId, prefer }, { abortSignal: signal })
      : await account.orders.captureOrder({ id, paypalRequestId, prefer }, { abortSignal: signal });
    return res.result as PayPalOrder;
  } catch (err) {
    if (!isPayPalError(err) || !ALREADY.has(describeError(err).issue ?? '')) throw err;
    return (await account.orders.getOrder({ id }, { abortSignal: signal })).result as PayPalOrder;
  }
}
