import type { FastifyInstance } from 'fastify';
import type { Config } from '../../services/platform/config.js';
import { addressWindowOf } from '../store/address-throttle.js';
import type { DashboardDeps } from './context.js';
import { RetryLater } from './retry-later.js';
import { clientIp } from './session-cookie.js';

// Per-client-address throttles of the dashboard's anonymous routes, the ones a script would hammer
// to spend our scrypt work or to try passwords and tokens: a route opts in with
// `config: { throttle: '<name>' }` and this one hook counts it, before the body is even read.
// A fixed window of one clock minute per route and address, counted in Postgres
// (gateway/store/address-throttle.ts) so every replica shares one budget. Limits a person never
// reaches (AUTH_THROTTLE_PER_MINUTE, SIGN_IN_THROTTLE_PER_MINUTE); past them 429 rate_limited with
// Retry-After until the minute ends. The address is clientIp's: X-Forwarded-For only from TRUSTED_PROXIES.

// Operator sign-in is not among them: it does no costly work, and a count of every request per address
// would let wrong tokens from an address all operators share lock out the right one; its wrong tokens
// are slowed per address instead (operator-routes.ts, throttle.ts).
export const THROTTLED_ROUTES = ['register', 'register-confirm', 'sign-in', 'password-reset', 'password-reset-confirm', 'invitation-accept',
  'owner-link-accept'] as const;
export type ThrottledRoute = (typeof THROTTLED_ROUTES)[number];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Counts the route's requests per client address (address-throttle.ts). */
    throttle?: ThrottledRoute;
  }
}

/** Requests per address per minute of a throttled route. */
export function addressLimit(route: ThrottledRoute, config: Pick<Config, 'authThrottlePerMinute' | 'signInThrottlePerMinute'>): number {
  return route === 'sign-in' ? config.signInThrottlePerMinute : config.authThrottlePerMinute;
}

export function installAddressThrottle(scope: FastifyInstance, deps: DashboardDeps): void {
  scope.addHook('onRequest', async (request) => {
    const route = request.routeOptions.config.throttle;
    if (route === undefined) return;
    const at = deps.clock.now();
    const limit = addressLimit(route, deps.config);
    if (await deps.store.takeAddressRequest(route, clientIp(request, deps), limit, at)) return;
    const wait = Math.ceil(addressWindowOf(at).leftMs / 1000);
    throw new RetryLater(`Too many ${route} requests from this address (at most ${limit} a minute); try again in ${wait} seconds.`, wait);
  });
}
