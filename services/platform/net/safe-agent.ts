import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';

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

/**
 * undici's pooled client (a keep-alive pool per origin) whose every new connection goes through
 * the guarded lookup: its `connect` hook is where the address policy is applied, to every address
 * the name resolves to, at connect time. The provider fetch and the webhooks dispatcher both send
 * through one of these (each with its own policy, so a connection opened under one set of rules is
 * never reused under another). A literal address in a URL is not looked up, so its caller checks it.
 * The pools set no cap of their own: the webhooks dispatcher caps requests per endpoint, and a cap
 * per origin would queue the endpoints of one host behind each other, waits counted in time-outs.
 */
export function createGuardedAgent(check: AddressCheck, resolve?: Resolver): Agent {
  return new Agent({ connect: { lookup: guardedLookup(check, resolve) } });
}
