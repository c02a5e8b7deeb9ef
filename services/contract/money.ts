import { MINOR_UNITS } from './currencies.js';

// Amounts travel in minor units; people read them in major units with their currency.

/**
 * An amount: a whole number of its currency's minor units (520 EUR is 5.20 EUR), signed where the
 * ledger counts money out. One type from the gateway's request to the ledger's row: proto's int64
 * and Postgres' bigint are both wider than a double's exact integers, and a sum of amounts must
 * stay exact. JSON (the contract's bodies, the internal events' payloads) carries it as a number,
 * and these functions are the only crossings between the two.
 */
export type Minor = bigint;

/** An amount from a JSON number: refuses a fraction or one beyond a double's exact integers. */
export function minorFromJson(value: number): Minor {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${value} is not a whole number of minor units a JSON number holds exactly`);
  return BigInt(value);
}

const MAX_JSON = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * An amount as a JSON number. A double holds integers exactly only up to 2^53-1, so a larger one
 * would be written rounded: another amount, silently. The gateway admits none above it (requests.ts)
 * and every stored amount came through it; one beyond is a fault to fail on, never to round.
 */
export function minorToJson(value: Minor): number {
  if (value > MAX_JSON || value < -MAX_JSON) throw new RangeError(`${value} minor units is beyond what a JSON number holds exactly`);
  return Number(value);
}

/**
 * An amount as a Postgres row hands it over: a bigint column as bigint (the pools' int8 parser,
 * services/platform/db.ts), a numeric one (a SUM) as text, one inside json_agg as a JSON number.
 */
export function minorFromColumn(value: string | number | bigint): Minor {
  return typeof value === 'number' ? minorFromJson(value) : BigInt(value);
}

/** Digits after the decimal point of a currency the contract accepts (currencies.ts); undefined for another code. */
export function fractionDigits(currency: string): number | undefined {
  return MINOR_UNITS.get(currency);
}

/** 520 EUR minor units reads "5.20 EUR", 500 JPY "500 JPY"; an unknown currency keeps its minor units. */
export function formatMoney(minor: Minor | number, currency: string): string {
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
export function parseMajorAmount(text: string, currency: string): Minor | undefined {
  const digits = fractionDigits(currency);
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (digits === undefined || !m) return undefined;
  const fraction = m[3] ?? '';
  if (/[1-9]/.test(fraction.slice(digits))) return undefined;
  const minor = BigInt(m[2]) * 10n ** BigInt(digits) + BigInt(fraction.slice(0, digits).padEnd(digits, '0') || '0');
  return m[1] === '-' ? -minor : minor;
}
