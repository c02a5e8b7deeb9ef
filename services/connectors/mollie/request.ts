// The body of POST /v2/payments for an attempt (https://docs.mollie.com/reference/create-payment):
// the amount object, Mollie's method(s) for the contract's method type, the merchant's return page
// as redirectUrl, the account's notification route as webhookUrl, our ids as metadata, and the
// attempt id as the Idempotency-Key header (the SDK's `idempotencyKey`).
import { toMollieAmount, type MollieAmount } from './amounts.js';
import { CONDITIONS, type MollieRule } from './errors.js';
import type { AuthorizeRequest } from '../types.js';

/**
 * Mollie's methods (https://docs.mollie.com/reference/payment-method) by the contract's method type:
 * bank redirects and local schemes, account-to-account open banking, and SEPA bank transfer.
 */
export const METHODS_BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  local: ['ideal', 'bancontact', 'eps', 'przelewy24', 'blik', 'kbc', 'belfius', 'twint', 'mybank', 'satispay'],
  open_banking: ['paybybank', 'trustly'],
  bank_transfer: ['banktransfer'],
};

/**
 * The method(s) Mollie shows: the token names one (`ideal`), else every method of the type, of
 * which Mollie's page offers those the profile has activated; undefined when the token names none of them.
 */
export function methodsFor(methodType: string, token: string | undefined): string | string[] | undefined {
  const allowed = METHODS_BY_TYPE[methodType];
  if (!allowed) return undefined;
  if (token === undefined) return allowed.length === 1 ? allowed[0] : [...allowed];
  return allowed.includes(token) ? token : undefined;
}

export interface MolliePaymentRequest {
  amount: MollieAmount;
  description: string;
  method: string | string[];
  redirectUrl: string;
  webhookUrl?: string;
  metadata: Record<string, string>;
  idempotencyKey: string;
}

/** The request for an attempt, or the rule that refuses it before anything is sent. */
export function paymentRequest(req: AuthorizeRequest, webhookUrl: string | undefined): MolliePaymentRequest | MollieRule {
  const amount = toMollieAmount(req.amount, req.currency);
  if (!amount) return CONDITIONS.amount_not_representable;
  const method = methodsFor(req.methodType, req.paymentMethodToken);
  if (!method) return CONDITIONS.unusable_method;
  if (!req.returnUrl) return CONDITIONS.return_url_required;
  return {
    amount,
    // What the customer's bank statement shows: our payment id, which support can search by.
    description: `Payment ${req.paymentId}`,
    method,
    redirectUrl: req.returnUrl,
    ...(webhookUrl && { webhookUrl }),
    metadata: { payment_id: req.paymentId, attempt_id: req.attemptId },
    idempotencyKey: req.attemptId,
  };
}

export const isRequest = (r: MolliePaymentRequest | MollieRule): r is MolliePaymentRequest => 'amount' in r && 'redirectUrl' in r;
