// How many minor units Stripe expects for an amount we hold in our minor units (minor-units.ts
// moves amounts between the two). Stripe's follow its currency reference
// (https://docs.stripe.com/currencies): two decimals unless the currency is zero-decimal or
// three-decimal, with documented special cases.
import { fromProviderMinor, toProviderMinor } from '../minor-units.js';

/**
 * Stripe's zero-decimal currencies: the amount is the charge ("to charge 500 JPY, provide 500").
 * UGX is on Stripe's list too, but its special case governs charges: "UGX transitioned to a
 * zero-decimal currency, but backwards compatibility requires you to represent it as a two-decimal
 * value, where the decimal amount is always 00", word for word as for ISK, so both count as
 * two-decimal here (5 ISK is sent as 500).
 */
const ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);

/**
 * Three-decimal currencies: Stripe takes three decimals for PaymentIntents and refunds but requires
 * the last digit to be 0 "to ensure compatibility with Stripe's payments partners".
 */
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/** Digits after the decimal point in a Stripe amount. HUF and TWD charge two-decimal amounts (their special case concerns payouts only). */
export function stripeDigits(currency: string): number {
  const c = currency.toUpperCase();
  if (ZERO_DECIMAL.has(c)) return 0;
  if (THREE_DECIMAL.has(c)) return 3;
  return 2;
}

/**
 * Our minor units of `currency` as Stripe's amount, or undefined when Stripe cannot carry it
 * exactly: a fraction Stripe has no digit for, or a three-decimal amount not ending in 0.
 */
export function toStripeAmount(amount: bigint, currency: string): bigint | undefined {
  const theirs = stripeDigits(currency);
  const out = toProviderMinor(amount, currency, theirs);
  if (out === undefined || (theirs === 3 && out % 10n !== 0n)) return undefined;
  return out;
}

/** A Stripe amount back in our minor units (the inverse of toStripeAmount; truncates what we cannot hold). */
export function fromStripeAmount(amount: number, currency: string): bigint {
  return fromProviderMinor(amount, currency, stripeDigits(currency));
}
