import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Payout } from '../../../proto/gen/svc/payouts/v1/payouts_pb.js';

// The contract's JSON shape of a payout, in the contract's field order, and the contract's rule
// that a payout destination is a token, never a raw account number. Both are shared: the REST API
// and the payout.* events serialise alike, and the gateway and the payouts part refuse alike.

/**
 * `destination` echoes what was sent except the provider token, which (like a stored payment
 * method's) never leaves the service: the masked `display` is what identifies the beneficiary.
 * `description`, `reference` and `metadata` are stored but are not fields of the contract's Payout.
 */
export function payoutJson(p: Payout): Record<string, unknown> {
  const d = p.destination;
  const r = p.route;
  return {
    id: p.id,
    object: 'payout',
    mode: p.mode,
    status: p.status,
    // Amounts are bigint in proto; the REST layer never admits any above 2^53-1.
    amount: Number(p.amount),
    currency: p.currency,
    destination: {
      type: d?.type ?? null,
      display: d?.display ?? null,
      holder_name: d?.holderName ?? null,
      country: d?.country ?? null,
    },
    route: {
      provider: r?.provider ? { id: r.provider.id, code: r.provider.code, name: r.provider.name } : null,
      provider_account_id: r?.providerAccountId ?? null,
      provider_payout_id: r?.providerPayoutId ?? null,
      rule: r?.rule ?? null,
    },
    fee: { amount: Number(p.feeAmount), currency: p.feeCurrency },
    failure: p.failure ? { code: p.failure.code, category: p.failure.category, message: p.failure.message } : null,
    created_at: p.createdAt ? timestampDate(p.createdAt).toISOString() : null,
  };
}

/** ISO 13616: move the first four characters to the end, letters to numbers, remainder mod 97 is 1. */
function isIban(candidate: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(candidate)) return false;
  const digits = (candidate.slice(4) + candidate.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const ch of digits) rest = (rest * 10 + Number(ch)) % 97;
  return rest === 1;
}

/** Any IBAN inside the text, written compactly or in groups separated by spaces or dashes. */
function containsIban(text: string): boolean {
  for (const m of text.toUpperCase().matchAll(/[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]){11,30}/g)) {
    const compact = m[0].replace(/[ -]/g, '');
    // IBAN lengths differ by country (15 to 34): a longer match may hold a valid one at its start.
    for (let len = compact.length; len >= 15; len--) if (isIban(compact.slice(0, len))) return true;
  }
  return false;
}

/** Eight or more digits in one run, allowing the single spaces or dashes account numbers are grouped by. */
function longestDigitRun(text: string): number {
  let best = 0;
  for (const m of text.matchAll(/\d(?:[ -]?\d)*/g)) best = Math.max(best, m[0].replace(/[ -]/g, '').length);
  return best;
}

export interface DestinationInput {
  token?: string;
  display?: string;
  holderName?: string;
}

const ACCOUNT_DIGITS = 8;

/**
 * The path of the first destination field that carries a raw account number, or undefined. An
 * IBAN (valid checksum) is refused anywhere. A masked display or a name never needs eight digits in
 * a row, so such a run is refused there; a token is refused when it is nothing but such digits,
 * since a provider's token has its own shape (a prefix, letters) and may legitimately hold digits.
 */
export function rawAccountNumberField(d: DestinationInput): string | undefined {
  const checks: Array<[string, string | undefined, (v: string) => boolean]> = [
    ['destination.token', d.token, (v) => containsIban(v) || (/^[\d -]+$/.test(v.trim()) && longestDigitRun(v) >= ACCOUNT_DIGITS)],
    ['destination.display', d.display, (v) => containsIban(v) || longestDigitRun(v) >= ACCOUNT_DIGITS],
    ['destination.holder_name', d.holderName, (v) => containsIban(v) || longestDigitRun(v) >= ACCOUNT_DIGITS],
  ];
  for (const [field, value, raw] of checks) if (value !== undefined && raw(value)) return field;
  return undefined;
}
