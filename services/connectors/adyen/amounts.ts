// How many minor units Adyen expects for an amount we hold in our minor units (minor-units.ts
// moves amounts between the two). Adyen's follow its currency table
// (https://docs.adyen.com/development-resources/currency-codes): two decimals unless listed below.
// "For CLP, CVE, IDR, and ISK the standard has a different number of decimals than shown in our
// table ... the decimals in the table are leading": Adyen takes CLP and ISK with two decimals, CVE
// and IDR with none.
import { fromProviderMinor, toProviderMinor } from '../minor-units.js';

/** Adyen's zero-decimal currencies (CVE and IDR differ from ISO 4217). */
const ZERO_DECIMAL = new Set([
  'CVE', 'DJF', 'GNF', 'IDR', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF',
]);

/** Adyen's three-decimal currencies. */
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

/** Digits after the decimal point in an Adyen amount: CLP, ISK, HUF and the rest take two. */
export function adyenDigits(currency: string): number {
  const c = currency.toUpperCase();
  if (ZERO_DECIMAL.has(c)) return 0;
  if (THREE_DECIMAL.has(c)) return 3;
  return 2;
}

/** Our minor units of `currency` as Adyen's `amount.value`, or undefined when Adyen cannot carry it exactly. */
export function toAdyenAmount(amount: bigint, currency: string): bigint | undefined {
  return toProviderMinor(amount, currency, adyenDigits(currency));
}

/** An Adyen amount back in our minor units (the inverse of toAdyenAmount; truncates what we cannot hold). */
export function fromAdyenAmount(value: number, currency: string): bigint {
  return fromProviderMinor(value, currency, adyenDigits(currency));
}
