import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import type { Identity } from '../store/index.js';
// The files themselves rather than the shared index: the `svc` CLI imports this parser to refuse a
// bad entry locally, and should not load the database and bus clients to do so.
import { ConfigError } from '../../services/platform/config.js';
import { DomainError } from '../../services/contract/errors.js';

// Per-project IP allow-list (contract, Authentication item 7) and the client address it is checked
// against. Addresses are handled as bigints, so matching a CIDR range is one comparison and the
// normal form written back to the database is produced here rather than trusted from the input.

/** What one project's list may hold; the management API and the CLI refuse more. */
export const MAX_ALLOWLIST_ENTRIES = 100;

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

const BITS = { 4: 32, 6: 128 } as const;
// ::ffff:0:0/96, where an IPv4 address appears when a dual-stack socket or a proxy writes it as IPv6.
const MAPPED = 0xffffn << 32n;

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
function parseAddress(text: string): Address | undefined {
  if (text.includes('%')) return undefined;
  const family = isIP(text);
  if (family === 4) return { family: 4, value: parseIPv4(text) };
  if (family === 6) return { family: 6, value: parseIPv6(text) };
  return undefined;
}

/** ::ffff:a.b.c.d is the IPv4 host a.b.c.d, so it is compared and shown as such. */
function unmapped(address: Address): Address {
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

/** The normal form of an allow-list entry (e.g. `10.0.0.0/8`, `2001:db8::1`), or undefined if invalid. */
export function normaliseEntry(entry: string): string | undefined {
  const range = parseRange(entry);
  return range && formatRange(range);
}

/** The ranges of a list; an entry that does not parse matches nothing (a list edited by hand fails closed). */
export function compileRanges(entries: readonly string[]): AddressRange[] {
  return entries.flatMap((entry) => parseRange(entry) ?? []);
}

function sameNetwork(value: bigint, range: AddressRange, bits: number): boolean {
  const shift = BigInt(bits - range.prefix);
  return value >> shift === range.network >> shift;
}

export function inRanges(address: Address, ranges: readonly AddressRange[]): boolean {
  const host = unmapped(address);
  return ranges.some((range) => {
    if (range.family === host.family) return sameNetwork(host.value, range, BITS[range.family]);
    // An IPv4 host is also ::ffff:a.b.c.d, which an IPv6 range of /96 or wider may contain.
    return host.family === 4 && sameNetwork(MAPPED | host.value, range, 128);
  });
}

/**
 * A socket peer or an X-Forwarded-For element as an address: brackets and a port (`[::1]:443`,
 * `192.0.2.1:80`, which some proxies write) and an interface zone (`fe80::1%eth0`) are dropped,
 * a mapped IPv4 address is unwrapped.
 */
export function parseHost(text: string): Address | undefined {
  let host = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  const v4WithPort = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(host);
  if (bracketed) host = bracketed[1];
  else if (v4WithPort) host = v4WithPort[1];
  const address = parseAddress(host.replace(/%[^%]*$/, ''));
  return address && unmapped(address);
}

/** Whether the client address (as clientAddress returns it) is inside the list's entries. */
export function isAllowed(address: string, entries: readonly string[]): boolean {
  const host = parseHost(address);
  return host !== undefined && inRanges(host, compileRanges(entries));
}

/**
 * The client's address in normal form, or undefined when it cannot be told.
 *
 * Without trusted proxies it is the socket peer, whatever X-Forwarded-For says: anyone can send
 * that header. With them, X-Forwarded-For is walked from the right, i.e. from the hop our own
 * proxy appended, and only while the address in hand is a trusted proxy: the first address that
 * is not one is the client. Elements left of it were written by the client and are ignored. If
 * every hop is a trusted proxy, the leftmost one is the client. A malformed element reached by the
 * walk makes the client unknown (undefined), so a request with an allow-list fails closed.
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustedProxies: readonly AddressRange[],
): string | undefined {
  let current = socketAddress === undefined ? undefined : parseHost(socketAddress);
  if (!current) return undefined;
  if (trustedProxies.length > 0) {
    // Several X-Forwarded-For headers count as one list in order (node joins them with ", " already).
    const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor ?? '';
    const hops = header.split(',').map((hop) => hop.trim()).filter((hop) => hop !== '');
    while (inRanges(current, trustedProxies)) {
      const hop = hops.pop();
      if (hop === undefined) break;
      current = parseHost(hop);
      if (!current) return undefined;
    }
  }
  return formatAddress(current);
}

/** TRUSTED_PROXIES compiled once; an entry this parser refuses stops start-up rather than being skipped. */
export function trustedProxyRanges(entries: readonly string[]): AddressRange[] {
  return entries.map((entry) => {
    const range = parseRange(entry);
    if (!range) throw new ConfigError('TRUSTED_PROXIES', `has "${entry}", which is not an IP address or CIDR range`);
    return range;
  });
}

/**
 * Refuses a /v1 request from outside its project's non-empty allow-list with 403 ip_not_allowed.
 * Installed in the /v1 scope right after authentication, so a refused request reaches neither the
 * rate limit (it costs the key no quota) nor idempotency (it leaves no record) nor any handler.
 */
/** 403 ip_not_allowed unless the request comes from the project's allow-list (or the list is empty). */
export function refuseOutsideAllowlist(request: FastifyRequest, identity: Identity, trusted: AddressRange[]): void {
  const entries = identity.project.ipAllowlist;
  if (entries.length === 0) return;
  const address = clientAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], trusted);
  if (address !== undefined && isAllowed(address, entries)) return;
  throw new DomainError(
    'ip_not_allowed',
    address === undefined
      ? 'The source address of this request could not be determined, and this project accepts requests only from its IP allow-list.'
      : `Requests from ${address} are not allowed: the address is outside this project's IP allow-list.`,
  );
}
