import { isValidIBAN } from 'ibantools';
import type { Payout } from '../../proto/gen/svc/payouts/v1/payouts_pb.js';
import { normaliseText } from './card-data.js';
import { DESTINATION_TYPES, MODES, PAYOUT_STATUSES } from './enums.js';
import { asOneOf, failureJson, iso, isoOrNull } from './json-values.js';
import { minorToJson } from './money.js';
import type { PayoutJson } from './resources.js';

const ACCOUNT_DIGITS = 8;

// The contract's JSON shape of a payout, in the contract's field order, and the contract's rule
// that a payout destination is a token, never a raw account number. Both are shared: the REST API
// and the payout.* events serialise alike, and the gateway and the payouts part refuse alike.

/**
 * `destination` echoes what was sent except the provider token, which (like a stored payment
 * method's) never leaves the service: the masked `display` is what identifies the beneficiary.
 * `description`, `reference` and `metadata` are stored but are not fields of the contract's Payout.
 * Every payout has a destination (the payouts part refuses one without); a message lacking it is a bug.
 */
export function payoutJson(p: Payout): PayoutJson {
  const d = p.destination;
  if (!d) throw new Error('a payout message without its destination');
  const r = p.route;
  return {
    id: p.id,
    object: 'payout',
    mode: asOneOf(MODES, p.mode),
    status: asOneOf(PAYOUT_STATUSES, p.status),
    amount: minorToJson(p.amount),
    currency: p.currency,
    destination: {
      type: asOneOf(DESTINATION_TYPES, d.type),
      display: d.display,
      holder_name: d.holderName ?? null,
      country: d.country ?? null,
    },
    route: {
      provider: r?.provider ? { id: r.provider.id, code: r.provider.code, name: r.provider.name } : null,
      provider_account_id: r?.providerAccountId ?? null,
      provider_payout_id: r?.providerPayoutId ?? null,
      rule: r?.rule ?? null,
      scheduled_for: isoOrNull(r?.scheduledFor),
    },
    fee: { amount: minorToJson(p.feeAmount), currency: p.feeCurrency },
    failure: failureJson(p.failure),
    created_at: iso(p.createdAt),
  };
}

// The separators people group IBANs and account numbers with, as for card numbers (any space,
// dashes, dots, slashes, underscores, invisible format characters), after the same normalisation.
const SEP = '[\\s\\p{Zs}\\p{Pd}\\p{Cf}./_]';

/** Any IBAN inside the text, written compactly or in groups, in any digit or width form. */
function containsIban(text: string): boolean {
  const upper = normaliseText(text).toUpperCase();
  // Not inside a word: "ref_bc218255..." holds no IBAN starting at "BC".
  for (const m of upper.matchAll(new RegExp(`(?<![A-Z0-9])[A-Z]{2}\\d{2}(?:${SEP}?[A-Z0-9]){11,30}`, 'gu'))) {
    const compact = m[0].replace(new RegExp(SEP, 'gu'), '');
    // ibantools checks the country's registered length and BBAN format besides the checksum, so
    // text that passes mod 97 by chance (about one try in 97) is not taken for an account. A longer
    // match may hold a valid IBAN at its start.
    for (let len = compact.length; len >= 15; len--) if (isValidIBAN(compact.slice(0, len))) return true;
  }
  return false;
}

const DIGIT_RUN = new RegExp(`\\d(?:${SEP}?\\d)*`, 'gu');

/** The most digits in one run, allowing the single separators account numbers are grouped by. */
function longestDigitRun(text: string): number {
  let best = 0;
  for (const m of normaliseText(text).matchAll(DIGIT_RUN)) best = Math.max(best, m[0].replace(/\D/g, '').length);
  return best;
}

// "Account 12345678", "acct no: 1234-5678-90", "Kontonummer 12345678", "routing 021000021": a
// label that names a bank account followed closely by eight or more digits.
const ACCOUNT_LABEL = new RegExp(
  `(?<!\\p{L})(?:account|acct|acc|a/c|konto|kontonummer|bban|routing|aba|sort${SEP}*code)(?:${SEP}*(?:no|nr|number|num|#))?(?!\\p{L})[^\\d\\n]{0,8}(\\d(?:${SEP}?\\d)*)`,
  'giu',
);

function containsLabelledAccountNumber(text: string): boolean {
  for (const m of normaliseText(text).matchAll(ACCOUNT_LABEL)) {
    if (m[1].replace(/\D/g, '').length >= ACCOUNT_DIGITS) return true;
  }
  return false;
}

/**
 * Whether free text (a payout's description, reference, metadata) carries a bank account: an
 * IBAN with a valid checksum anywhere, or eight or more digits right after an account label. A
 * bare digit run is left alone there, since order and invoice numbers are what references hold.
 */
export function containsAccountNumber(text: string): boolean {
  return containsIban(text) || containsLabelledAccountNumber(text);
}

/** The path of the first free-text field of a payout body holding a bank account, or undefined. */
export function payoutFreeTextAccountField(body: Record<string, unknown>): string | undefined {
  for (const field of ['description', 'reference'] as const) {
    const v = body[field];
    if (typeof v === 'string' && containsAccountNumber(v)) return field;
  }
  const metadata = body.metadata;
  if (metadata && typeof metadata === 'object' && !Array.isArray(metadata)) {
    for (const [key, v] of Object.entries(metadata)) {
      // A key holding one is reported as `metadata`, so the error never echoes it.
      if (containsAccountNumber(key)) return 'metadata';
      if (typeof v === 'string' && containsAccountNumber(v)) return `metadata.${key}`;
    }
  }
  return undefined;
}

export interface DestinationInput {
  token?: string;
  display?: string;
  holderName?: string;
}

/**
 * The path of the first destination field that carries a raw account number, or undefined. An
 * IBAN (valid checksum) is refused anywhere. A masked display or a name never needs eight digits in
 * a row, so such a run is refused there; a token is refused when it is nothing but such digits,
 * since a provider's token has its own shape (a prefix, letters) and may legitimately hold digits.
 */
export function rawAccountNumberField(d: DestinationInput): string | undefined {
  const checks: Array<[string, string | undefined, (v: string) => boolean]> = [
    ['destination.token', d.token, (v) => containsIban(v) || (/^[\d\s\p{Zs}\p{Pd}\p{Cf}./_]+$/u.test(normaliseText(v).trim()) && longestDigitRun(v) >= ACCOUNT_DIGITS)],
    ['destination.display', d.display, (v) => containsIban(v) || longestDigitRun(v) >= ACCOUNT_DIGITS],
    ['destination.holder_name', d.holderName, (v) => containsIban(v) || longestDigitRun(v) >= ACCOUNT_DIGITS],
  ];
  for (const [field, value, raw] of checks) if (value !== undefined && raw(value)) return field;
  return undefined;
}
