import { CURRENCIES } from './currencies.js';

// Amounts travel in minor units; people read them in major units with their currency.

/** Digits after the decimal point of an ISO 4217 currency (EUR 2, JPY 0, KWD 3); undefined for another code. */
export function fractionDigits(currency: string): number | undefined {
  // Intl takes any three letters, at two digits; only the contract's currencies are known.
  if (!CURRENCIES.has(currency)) return undefined;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return undefined;
  }
}

/** 520 EUR minor units reads "5.20 EUR", 500 JPY "500 JPY"; an unknown currency keeps its minor units. */
export function formatMoney(minor: bigint | number, currency: string): string {
  const digits = fractionDigits(currency);
  if (digits === undefined) return `${minor} ${currency} (minor units)`;
  const n = BigInt(minor);
  const sign = n < 0n ? '-' : '';
  const abs = n < 0n ? -n : n;
  if (digits === 0) return `${sign}${abs} ${currency}`;
  const unit = 10n ** BigInt(digits);
  return `${sign}${abs / unit}.${(abs % unit).toString().padStart(digits, '0')} ${currency}`;
}
