import type { AuthorizeResult, CardFacts } from './types.js';

/**
 * What a provider's answer tells about the card, in one vocabulary for every connector: its
 * network (Stripe's names: visa, mastercard, amex, ...) and its BIN range (the first six digits).
 * Routing learns success rates per network from attempt.settled. A BIN range is never more than
 * six digits, whatever the provider sent: anything that is not 6 to 8 digits is refused rather
 * than cut, since a longer number may be a card number, which never enters the deployment.
 */

const NETWORKS: Array<[RegExp, string]> = [
  [/^visa/, 'visa'],
  [/^(mc|mastercard)(_|$)/, 'mastercard'],
  [/^maestro/, 'maestro'],
  [/^amex/, 'amex'],
  [/^diners/, 'diners'],
  [/^discover/, 'discover'],
  [/^jcb/, 'jcb'],
  [/^(cup|unionpay)/, 'unionpay'],
  [/^(cartebancaire|cartes_bancaires)/, 'cartes_bancaires'],
  [/^eftpos_au/, 'eftpos_au'],
];

/** The network a provider's brand name stands for; undefined when unknown (Stripe's `unknown` too). */
export function cardNetworkOf(brand: unknown): string | undefined {
  if (typeof brand !== 'string') return undefined;
  const name = brand.trim().toLowerCase();
  return NETWORKS.find(([pattern]) => pattern.test(name))?.[1];
}

/** The BIN range (first six digits) of a provider's BIN or IIN of 6 to 8 digits; undefined otherwise. */
export function binRangeOf(bin: unknown): string | undefined {
  if (typeof bin !== 'string' || !/^\d{6,8}$/.test(bin.trim())) return undefined;
  return bin.trim().slice(0, 6);
}

/** The facts, or undefined when the answer told neither. */
export function cardFactsOf(brand: unknown, bin: unknown): CardFacts | undefined {
  const network = cardNetworkOf(brand);
  const binRange = binRangeOf(bin);
  return network || binRange ? { network: network ?? null, binRange: binRange ?? null } : undefined;
}

/**
 * A scheme's network transaction id as a provider answered it (Visa's Transaction ID, Mastercard's
 * Trace ID, ...): letters and digits, at most 64, else undefined, so nothing odd reaches the
 * database. Kept only on a successful payment: a declined one's id cannot anchor later charges.
 */
export function withNetworkTransactionId(result: AuthorizeResult, id: unknown): AuthorizeResult {
  if (result.outcome !== 'success' || typeof id !== 'string') return result;
  const value = id.trim();
  return /^[A-Za-z0-9]{1,64}$/.test(value) ? { ...result, networkTransactionId: value } : result;
}
