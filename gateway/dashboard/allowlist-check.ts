import type { FastifyRequest } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import { isAllowed } from '../edge/ip-allowlist.js';
import { normalisedEntries } from '../management/allowlist.js';
import type { DashboardDeps } from './context.js';
import { clientIp } from './session-cookie.js';

// What the dashboard tells a member about an allow-list before it is saved: the address their own
// requests come from (the socket peer, or X-Forwarded-For only as far as TRUSTED_PROXIES allow:
// clientIp), and whether the list would refuse it. A bad entry is named in words for a person,
// not as the management API's `entries.0 is "..."`.

export interface AllowlistCheck {
  entries: string[];
  /** null when the address cannot be told (it then counts as outside any non-empty list). */
  client_address: string | null;
  /** Whether /v1 calls from client_address would be accepted with these entries. */
  client_allowed: boolean;
}

export function checkAllowlist(request: FastifyRequest, deps: DashboardDeps, value: unknown): AllowlistCheck {
  const entries = humanEntries(value);
  const ip = clientIp(request, deps);
  const address = ip === 'unknown' ? null : ip;
  return { entries, client_address: address, client_allowed: entries.length === 0 || (address !== null && isAllowed(address, entries)) };
}

/** The entries in normal form, or a validation error that names the entry as it was typed. */
export function humanEntries(value: unknown): string[] {
  try {
    return normalisedEntries(value);
  } catch (e) {
    const param = e instanceof DomainError ? e.options.param : undefined;
    const index = /^entries\.(\d+)$/.exec(param ?? '')?.[1];
    if (index === undefined || !Array.isArray(value)) throw e;
    const entry = value[Number(index)];
    const shown = typeof entry === 'string' ? `“${entry}”` : 'An entry';
    throw new DomainError(
      'validation_error',
      `${shown} is not an IP address or range. Enter an exact address such as 203.0.113.7 or 2001:db8::1, or a CIDR range such as 10.0.0.0/8.`,
      { param: param! },
    );
  }
}
