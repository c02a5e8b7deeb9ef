import { MINOR_UNITS } from './currencies.js';

// Amounts travel in minor units; people read them in major units with their currency.

/** Digits after the decimal point of a currency the contract accepts (currencies.ts); undefined for another code. */
export function fractionDigits(currency: string): number | undefined {
  return MINOR_UNITS.get(currency);
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

/**
 * A decimal amount in major units as providers' reports write it ("1234.50", "-3", "0.1") in the
 * currency's minor units (123450n EUR): exact, never rounded. Undefined for an unknown currency, text
 * that is not a plain decimal, or a non-zero digit the currency has no minor unit for ("1.005" EUR);
 * extra zeros ("1000.00" ISK) are fine.
 */
export function parseMajorAmount(text: string, currency: string): bigint | undefined {
  const digits = fractionDigits(currency);
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (digits === undefined || !m) return undefined;
  const fraction = m[3] ?? '';
  if (/[1-9]/.test(fraction.slice(digits))) return undefined;
  const minor = BigInt(m[2]) * 10n ** BigInt(digits) + BigInt(fraction.slice(0, digits).padEnd(digits, '0') || '0');
  return m[1] === '-' ? -minor : minor;
}
