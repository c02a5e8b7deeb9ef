// How many minor units Checkout.com expects for an amount we hold in our minor units (minor-units.ts
// moves amounts between the two). Checkout.com's follow its "Calculating the amount" reference
// (https://www.checkout.com/docs/payments/accept-payments/format-the-amount-value): the value times
// 100 unless the currency is one it takes in full (no decimals) or divided by 1000 (three decimals).
import { fromProviderMinor, toProviderMinor } from '../minor-units.js';

/** Currencies Checkout.com takes as the full value (ISK and UGX among them, unlike Stripe). */
const FULL_VALUE = new Set([
  'BIF', 'CLF', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'VUV', 'VND', 'XAF', 'XOF', 'XPF',
]);

/** Currencies Checkout.com takes with three decimals. */
const THOUSANDTHS = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

/** Digits after the decimal point in a Checkout.com amount. */
export function checkoutDigits(currency: string): number {
  const c = currency.toUpperCase();
  if (FULL_VALUE.has(c)) return 0;
  if (THOUSANDTHS.has(c)) return 3;
  return 2;
}

/** Our minor units of `currency` as Checkout.com's `amount`, or undefined when it cannot carry it exactly. */
export function toCheckoutAmount(amount: bigint, currency: string): bigint | undefined {
  return toProviderMinor(amount, currency, checkoutDigits(currency));
}

/** A Checkout.com amount back in our minor units (the inverse of toCheckoutAmount; truncates what we cannot hold). */
export function fromCheckoutAmount(value: number, currency: string): bigint {
  return fromProviderMinor(value, currency, checkoutDigits(currency));
}
