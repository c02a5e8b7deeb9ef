// The body of POST /payments for an attempt (https://api-reference.checkout.com, "Request a
// payment"): the source, our attempt id as `reference`, capture at once or held, and 3-D Secure by
// redirect when the merchant gave a page to come back to.
import { toCheckoutAmount } from './amounts.js';
import { CONDITIONS, type CheckoutRule } from './errors.js';
import type { AuthorizeRequest } from '../types.js';

/** A source as Checkout.com takes it: a Frames/Flow card token, a stored instrument, or a raw card. */
export type CheckoutSource =
  | { type: 'token'; token: string }
  | { type: 'id'; id: string }
  | { type: 'card'; number: string; expiry_month: number; expiry_year: number; cvv?: string; name?: string };

/**
 * A card as the vault-forwarding destination will hand it over (issue 25, being built apart):
 * the card's data reaches Checkout.com only through the vault's forwarding proxy, which fills these
 * fields in; this service never holds them. Nothing sets it yet: `paymentRequest` takes it so the
 * forwarded attempt has its place here, and `authorize` never passes one.
 */
export interface ForwardedCard {
  number: string;
  expiryMonth: number;
  expiryYear: number;
  cvv?: string;
  holderName?: string;
}

/** The token as Checkout.com's source: `tok_…` (Frames, Flow, wallets' tokens) or `src_…` (a stored instrument). */
export function sourceOf(token: string | undefined, card?: ForwardedCard): CheckoutSource | undefined {
  if (card) {
    return {
      type: 'card', number: card.number, expiry_month: card.expiryMonth, expiry_year: card.expiryYear,
      ...(card.cvv && { cvv: card.cvv }), ...(card.holderName && { name: card.holderName }),
    };
  }
  if (!token) return undefined;
  if (/^tok_[A-Za-z0-9_]+$/.test(token)) return { type: 'token', token };
  if (/^src_[A-Za-z0-9_]+$/.test(token)) return { type: 'id', id: token };
  return undefined;
}

export interface CheckoutPaymentRequest {
  source: CheckoutSource;
  amount: number;
  currency: string;
  reference: string;
  capture: boolean;
  payment_type: 'Regular';
  processing_channel_id?: string;
  metadata: Record<string, string>;
  '3ds'?: { enabled: boolean };
  success_url?: string;
  failure_url?: string;
}

/** The request for an attempt, or the rule that refuses it before anything is sent. */
export function paymentRequest(
  req: AuthorizeRequest, processingChannelId: string | undefined, card?: ForwardedCard,
): CheckoutPaymentRequest | CheckoutRule {
  const amount = toCheckoutAmount(req.amount, req.currency);
  if (amount === undefined) return CONDITIONS.amount_not_representable;
  const source = sourceOf(req.paymentMethodToken, card);
  if (!source) return CONDITIONS.unusable_token;
  return {
    source,
    amount: Number(amount),
    currency: req.currency.toUpperCase(),
    reference: req.attemptId,
    // capture false holds the funds until a capture; true captures at once after authorization.
    capture: req.captureMethod !== 'manual',
    payment_type: 'Regular',
    ...(processingChannelId && { processing_channel_id: processingChannelId }),
    metadata: { payment_id: req.paymentId, attempt_id: req.attemptId },
    // Without the merchant's page nobody could come back from 3-D Secure: none is asked for, and an
    // issuer that insists declines with 20154 (authentication required, a soft decline).
    ...(req.returnUrl && { '3ds': { enabled: true }, success_url: req.returnUrl, failure_url: req.returnUrl }),
  };
}

export const isRequest = (r: CheckoutPaymentRequest | CheckoutRule): r is CheckoutPaymentRequest => 'source' in r;
