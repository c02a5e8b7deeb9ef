import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

/** Why a resolved address may not be connected to, or undefined when it may. */
export type AddressCheck = (address: string) => string | undefined;

/** How names are resolved: node:dns lookup with `all: true`; a test gives one that answers what a rebinding name would. */
export type Resolver = (
  hostname: string, options: LookupOptions & { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export class AddressNotAllowedError extends Error {
  readonly code = 'EADDRNOTALLOWED';
}

/**
 * A DNS lookup that refuses the connection when any address the name resolves to is forbidden.
 * This is the check that counts: it runs at connect time on the addresses actually used, so a
 * name that passed when the endpoint was saved and now resolves inside (DNS rebinding) is refused.
 * Node calls it with `all: true` when it races address families (autoSelectFamily), else without.
 */
export function guardedLookup(check: AddressCheck, resolve: Resolver = dnsLookup): LookupFunction {
  return ((hostname: string, options: LookupOptions, callback: (...args: unknown[]) => void) => {
    resolve(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err);
      const problem = addresses.map((a) => check(a.address)).find((p) => p !== undefined);
      if (problem !== undefined || addresses.length === 0) {
        return callback(new AddressNotAllowedError(problem ?? `${hostname} resolved to no address`));
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  }) as LookupFunction;
}

// Enough for the open requests of several endpoints on one host to go back to the pool between
// requests, rather than be closed and opened again.
const IDLE_SOCKETS_PER_ORIGIN = 256;

export interface SafeAgents {
  http: http.Agent;
  https: https.Agent;
  destroy(): void;
}

/**
 * Keep-alive agents whose every new connection goes through the guarded lookup. One pair per
 * mode, so a connection opened under test mode's rules (loopback allowed) is never reused for live.
 * The agents set no cap of their own: the dispatcher caps requests per endpoint, and a cap per
 * origin would make the endpoints of one host queue behind each other (head-of-line blocking,
 * waits counted in their time-outs). Idle sockets are kept for the endpoints' next requests.
 */
export function createSafeAgents(check: AddressCheck): SafeAgents {
  const options = { keepAlive: true, maxFreeSockets: IDLE_SOCKETS_PER_ORIGIN, lookup: guardedLookup(check) };
  const agents = { http: new http.Agent(options), https: new https.Agent(options) };
  return { ...agents, destroy: () => { agents.http.destroy(); agents.https.destroy(); } };
}
