// The body of POST /payments for an attempt (https://api-reference.checkout.com, "Request a
// payment"): the source, our attempt id as `reference`, capture at once or held, and 3-D Secure by
// redirect when the merchant gave a page to come back to.
import { toCheckoutAmount } from './amounts.js';
import { CONDITIONS, type CheckoutRule } from './errors.js';
import type { AuthorizeRequest } from '../types.js';
import type { CardPlaceholders } from '../vault-forwarding.js';
import { minorToJson } from '../../contract/money.js';

/** A source as Checkout.com takes it: a Frames/Flow card token, a stored instrument, or a raw card. */
export type CheckoutSource =
  | { type: 'token'; token: string }
  | { type: 'id'; id: string }
  | { type: 'card'; number: string; expiry_month: number | string; expiry_year: number | string; cvv?: string; name?: string };

/**
 * A card of a forwarded attempt: each field holds the vault's placeholder, which the
 * vault's proxy replaces with the card's data; this service never holds it. Checkout.com's expiry
 * fields are integers, but a placeholder is a string ("" for Stripe, which fills the field as its
 * destination configuration types it; an expression for Basis Theory): see docs/decisions.md.
 */
export interface ForwardedCard {
  number: string;
  expiryMonth: number | string;
  expiryYear: number | string;
  cvv?: string;
  holderName?: string;
}

/** The vault's placeholders as Checkout.com's raw card; a merchant-initiated charge carries no CVV. */
export function forwardedCard(p: CardPlaceholders, req: Pick<AuthorizeRequest, 'merchantInitiated'> = {}): ForwardedCard {
  return {
    number: p.number, expiryMonth: p.expiryMonth, expiryYear: p.expiryYear, holderName: p.holderName,
    ...(!req.merchantInitiated && { cvv: p.cvc }),
  };
}

/** The token as Checkout.com's source: `tok_…` (Frames, Flow, wallets' tokens) or `src_…` (a stored instrument). */
export function sourceOf(token: string | undefined, card?: ForwardedCard): CheckoutSource | undefined {
  if (card) {
    return {
      type: 'card', number: card.number, expiry_month: card.expiryMonth, expiry_year: card.expiryYear,
      // Present even when empty: Stripe fills only the fields the request carries.
      ...(card.cvv !== undefined && { cvv: card.cvv }), ...(card.holderName !== undefined && { name: card.holderName }),
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
    amount: minorToJson(amount),
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
