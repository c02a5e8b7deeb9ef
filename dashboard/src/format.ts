import { fractionDigits } from '../../services/contract/money';

// How values are shown: money in major units with the currency, times in the browser's zone.
// Text only; Preact escapes everything it renders.

/**
 * Digits after the decimal point: the contract's one table of minor units (services/contract/
 * currencies.ts), never the browser's Intl data, which may count another number of digits.
 */
export function exponent(currency: string): number {
  return fractionDigits(currency.toUpperCase()) ?? 2;
}

export function money(amount: number, currency: string): string {
  const digits = exponent(currency);
  const major = amount / 10 ** digits;
  try {
    return new Intl.NumberFormat('en', {
      style: 'currency', currency: currency.toUpperCase(), minimumFractionDigits: digits, maximumFractionDigits: digits,
    }).format(major);
  } catch {
    return `${major.toFixed(digits)} ${currency.toUpperCase()}`;
  }
}

/** A major-unit amount typed by a person ("12.50") in minor units, or undefined if it is not one. */
export function toMinor(text: string, currency: string): number | undefined {
  const digits = exponent(currency);
  const m = /^\s*(\d+)(?:[.,](\d+))?\s*$/.exec(text);
  if (!m || (m[2]?.length ?? 0) > digits) return undefined;
  return Number(m[1]) * 10 ** digits + Number((m[2] ?? '').padEnd(digits, '0') || 0);
}

export function majorText(amount: number, currency: string): string {
  const digits = exponent(currency);
  return (amount / 10 ** digits).toFixed(digits);
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const parts = dateTimeParts(iso);
  return parts ? parts.join(', ') : iso;
}

/** A time's day and time of day ("7 Dec 2026", "04:12:33"), or undefined if it is not a time. */
export function dateTimeParts(iso: string): [string, string] | undefined {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return undefined;
  return [d.toLocaleDateString('en-GB', { dateStyle: 'medium' }), d.toLocaleTimeString('en-GB', { timeStyle: 'medium' })];
}

export function percent(ratio: number | null): string {
  return ratio === null ? '—' : `${(ratio * 100).toFixed(1)} %`;
}

export function label(value: string): string {
  return value.replace(/_/g, ' ');
}
