// Amounts as Mollie takes them: an object {currency, value} whose value is a decimal string with
// exactly the digits Mollie expects for the currency (https://docs.mollie.com/reference/common-data-types,
// "Amount object"): none for JPY and ISK, two for every other currency Mollie accepts.
import { fromProviderMinor, toProviderMinor } from '../minor-units.js';

/** Currencies Mollie takes without decimals. */
const WHOLE = new Set(['ISK', 'JPY']);

/** Digits after the decimal point in a Mollie amount value. */
export function mollieDigits(currency: string): number {
  return WHOLE.has(currency.toUpperCase()) ? 0 : 2;
}

export interface MollieAmount {
  currency: string;
  value: string;
}

/** Our minor units as Mollie's amount object, or undefined when Mollie cannot carry the amount exactly. */
export function toMollieAmount(amount: bigint, currency: string): MollieAmount | undefined {
  const digits = mollieDigits(currency);
  const minor = toProviderMinor(amount, currency, digits);
  if (minor === undefined || minor < 0n) return undefined;
  const text = minor.toString().padStart(digits + 1, '0');
  const value = digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
  return { currency: currency.toUpperCase(), value };
}

/** A Mollie amount object back in our minor units (truncates what we cannot hold); 0 when it is unreadable. */
export function fromMollieAmount(a: { currency?: string; value?: string } | null | undefined): bigint {
  if (!a?.currency || typeof a.value !== 'string' || !/^-?\d+(\.\d+)?$/.test(a.value)) return 0n;
  const digits = mollieDigits(a.currency);
  const [whole, fraction = ''] = a.value.replace('-', '').split('.');
  const minor = Number(`${whole}${fraction.padEnd(digits, '0').slice(0, digits)}`);
  const ours = fromProviderMinor(minor, a.currency, digits);
  return a.value.startsWith('-') ? -ours : ours;
}
