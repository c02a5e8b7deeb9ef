import { isIP } from 'node:net';

// IPv4 and IPv6 addresses and CIDR ranges, parsed, written and matched in one place: the IP
// allow-list's entries (allowlist-entry.ts), the gateway's client address and trusted proxies
// (gateway/edge/ip-allowlist.ts) and the address policy of outgoing requests
// (services/platform/net/address-policy.ts). Addresses are bigints, so matching a range is one
// comparison and a normal form is produced here rather than trusted from the input. Uses node:net's
// isIP only, so the dashboard's browser bundle does not import it.

export interface Address {
  family: 4 | 6;
  value: bigint;
}

/** An entry of an allow-list or of TRUSTED_PROXIES: an exact address is a range of its full length. */
export interface AddressRange {
  family: 4 | 6;
  /** The network address, host bits cleared. */
  network: bigint;
  prefix: number;
}

export const BITS = { 4: 32, 6: 128 } as const;
// ::ffff:0:0/96, where an IPv4 address appears when a dual-stack socket or a proxy writes it as IPv6.
export const MAPPED = 0xffffn << 32n;

function parseIPv4(text: string): bigint {
  return text.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function ipv6Groups(part: string): bigint[] {
  if (part === '') return [];
  return part.split(':').flatMap((group) => {
    if (!group.includes('.')) return [BigInt(parseInt(group, 16))];
    const v4 = parseIPv4(group);
    return [v4 >> 16n, v4 & 0xffffn];
  });
}

function parseIPv6(text: string): bigint {
  const halves = text.split('::');
  const head = ipv6Groups(halves[0]);
  const tail = halves.length === 2 ? ipv6Groups(halves[1]) : [];
  const groups = halves.length === 2 ? [...head, ...Array(8 - head.length - tail.length).fill(0n), ...tail] : head;
  return groups.reduce((acc, group) => (acc << 16n) | group, 0n);
}

/**
 * An address as written (no zone, port or brackets), or undefined. node's isIP does the validation
 * (it refuses octal-looking IPv4 such as 010.0.0.1); the parsers above only convert what it accepted.
 */
export function parseAddress(text: string): Address | undefined {
  if (text.includes('%')) return undefined;
  const family = isIP(text);
  if (family === 4) return { family: 4, value: parseIPv4(text) };
  if (family === 6) return { family: 6, value: parseIPv6(text) };
  return undefined;
}

/** ::ffff:a.b.c.d is the IPv4 host a.b.c.d, so it is compared and shown as such. */
export function unmapped(address: Address): Address {
  if (address.family === 6 && address.value >> 32n === 0xffffn) return { family: 4, value: address.value & 0xffffffffn };
  return address;
}

function hostMask(bits: number, prefix: number): bigint {
  return (1n << BigInt(bits - prefix)) - 1n;
}

/** RFC 5952: lowercase, no leading zeros, the longest run (first on a tie) of two or more zero groups as `::`. */
export function formatAddress(address: Address): string {
  if (address.family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((address.value >> shift) & 0xffn)).join('.');
  }
  const groups = Array.from({ length: 8 }, (_, i) => Number((address.value >> BigInt(112 - 16 * i)) & 0xffffn));
  let best = { start: -1, length: 1 };
  for (let i = 0; i < 8; ) {
    let end = i;
    while (end < 8 && groups[end] === 0) end++;
    if (end - i > best.length) best = { start: i, length: end - i };
    i = Math.max(end, i + 1);
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

/** An exact IPv4/IPv6 address or CIDR range, or undefined when the text is neither. */
export function parseRange(entry: string): AddressRange | undefined {
  const [text, prefixText, extra] = entry.trim().split('/');
  if (extra !== undefined) return undefined;
  const address = parseAddress(text);
  if (!address) return undefined;
  const bits = BITS[address.family];
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return undefined;
  // A mapped range of at least /96 holds nothing but IPv4 hosts: it is that IPv4 range. A wider
  // IPv6 range (::/0, ::/80) stays IPv6 and still covers IPv4 hosts through their mapped form.
  if (address.family === 6 && prefix >= 96 && address.value >> 32n === 0xffffn) {
    return { family: 4, network: address.value & 0xffffffffn & ~hostMask(32, prefix - 96), prefix: prefix - 96 };
  }
  // Host bits are cleared rather than refused: 10.1.2.3/8 can only mean 10.0.0.0/8 to a matcher.
  return { family: address.family, network: address.value & ~hostMask(bits, prefix), prefix };
}

/** The stored form: an exact address without a prefix, a range as network/prefix. */
export function formatRange(range: AddressRange): string {
  const address = formatAddress({ family: range.family, value: range.network });
  return range.prefix === BITS[range.family] ? address : `${address}/${range.prefix}`;
}

function sameNetwork(value: bigint, range: AddressRange, bits: number): boolean {
  const shift = BigInt(bits - range.prefix);
  return value >> shift === range.network >> shift;
}

/** Whether the address is inside one of the ranges; an IPv4 host also as ::ffff:a.b.c.d. */
export function inRanges(address: Address, ranges: readonly AddressRange[]): boolean {
  const host = unmapped(address);
  return ranges.some((range) => {
    if (range.family === host.family) return sameNetwork(host.value, range, BITS[range.family]);
    // An IPv4 host is also ::ffff:a.b.c.d, which an IPv6 range of /96 or wider may contain.
    return host.family === 4 && sameNetwork(MAPPED | host.value, range, 128);
  });
}
