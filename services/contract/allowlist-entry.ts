import { formatRange, parseRange } from './ip-address.js';

// What an entry of a project's IP allow-list is (contract, Authentication item 7): an exact IPv4 or
// IPv6 address or a CIDR range, in one normal form, at most MAX_ALLOWLIST_ENTRIES of them. One home
// for the rule, so the gateway (which stores and matches entries) and the `svc` CLI (which refuses a
// bad entry before sending it) cannot disagree. Addresses and ranges themselves: ip-address.ts.

/** What one project's list may hold; the management API and the CLI refuse more. */
export const MAX_ALLOWLIST_ENTRIES = 100;

/** The normal form of an allow-list entry (e.g. `10.0.0.0/8`, `2001:db8::1`), or undefined if invalid. */
export function normaliseEntry(entry: string): string | undefined {
  const range = parseRange(entry);
  return range && formatRange(range);
}
