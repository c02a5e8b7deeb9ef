// How PayPal writes an amount we hold in our minor units: a decimal string (`value`) with the
// currency's digits as PayPal's currency codes reference lists them
// (https://developer.paypal.com/reference/currency-codes/): two, except HUF, JPY and TWD, which
// PayPal takes without decimals. minor-units.ts moves amounts between ours and PayPal's.
import { fromProviderMinor, toProviderMinor } from '../minor-units.js';
import { PAYPAL_CURRENCIES } from './facts.js';

/** Currencies PayPal takes as whole units ("this currency does not support decimals"). */
const WHOLE_UNITS = new Set(['HUF', 'JPY', 'TWD']);

export function paypalDigits(currency: string): number {
  return WHOLE_UNITS.has(currency.toUpperCase()) ? 0 : 2;
}

/** Our minor units as PayPal's `value` ("25.00", "500"), or undefined when PayPal cannot carry it exactly. */
export function toPayPalValue(amount: bigint, currency: string): string | undefined {
  if (!(PAYPAL_CURRENCIES as readonly string[]).includes(currency.toUpperCase())) return undefined;
  const digits = paypalDigits(currency);
  const minor = toProviderMinor(amount, currency, digits);
  if (minor === undefined || minor < 0n) return undefined;
  if (digits === 0) return minor.toString();
  const text = minor.toString().padStart(digits + 1, '0');
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** PayPal's `value` back in our minor units; undefined when it is not a plain decimal. */
export function fromPayPalValue(value: string, currency: string): bigint | undefined {
  const m = /^(\d+)(?:\.(\d{1,3}))?$/.exec(value);
  if (!m) return undefined;
  const digits = paypalDigits(currency);
  const fraction = (m[2] ?? '').padEnd(digits, '0').slice(0, digits);
  return fromProviderMinor(Number(`${m[1]}${fraction}`), currency, digits);
}
