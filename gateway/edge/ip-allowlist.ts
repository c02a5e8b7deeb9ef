import type { FastifyRequest } from 'fastify';
import type { Identity } from '../store/index.js';
import { ConfigError } from '../../services/platform/config.js';
import { DomainError } from '../../services/contract/errors.js';
import {
  formatAddress, inRanges, parseAddress, parseRange, unmapped, type Address, type AddressRange,
} from '../../services/contract/ip-address.js';

// Matching a request against a project's IP allow-list, and the client address it is checked
// against. Addresses and ranges are parsed and matched by services/contract/ip-address.ts.

/** The ranges of a list; an entry that does not parse matches nothing (a list edited by hand fails closed). */
export function compileRanges(entries: readonly string[]): AddressRange[] {
  return entries.flatMap((entry) => parseRange(entry) ?? []);
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
