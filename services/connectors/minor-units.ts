// Our minor units against a provider's. Ours follow `fractionDigits` (the contract's one table,
// services/contract/currencies.ts, so HUF and ISK count whole units); a provider's follow its own
// currency table, which its connector keeps (stripe/amounts.ts, adyen/amounts.ts). Moving an amount
// between the two is the same for every provider.
import { fractionDigits } from '../contract/money.js';

/**
 * Our minor units of `currency` in a provider's with `theirs` digits, or undefined when they cannot
 * carry it exactly (a fraction the provider has no digit for, or a currency we do not know): refused
 * rather than rounded, since rounding would charge another amount than asked.
 */
export function toProviderMinor(amount: bigint, currency: string, theirs: number): bigint | undefined {
  const ours = fractionDigits(currency.toUpperCase());
  if (ours === undefined) return undefined;
  if (theirs >= ours) return amount * 10n ** BigInt(theirs - ours);
  const unit = 10n ** BigInt(ours - theirs);
  return amount % unit === 0n ? amount / unit : undefined;
}

/** A provider's amount with `theirs` digits back in our minor units (truncates what we cannot hold). */
export function fromProviderMinor(value: number, currency: string, theirs: number): bigint {
  const ours = fractionDigits(currency.toUpperCase()) ?? 2;
  const n = BigInt(value);
  return theirs >= ours ? n / 10n ** BigInt(theirs - ours) : n * 10n ** BigInt(ours - theirs);
}
