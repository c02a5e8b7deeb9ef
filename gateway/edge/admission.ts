import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../services/platform/clock.js';
import type { Config } from '../../services/platform/config.js';
import { authenticate } from '../auth/authenticate.js';
import { rememberIdentity } from '../auth/identity.js';
import type { GatewayStore } from '../store/index.js';
import { refuseOutsideAllowlist, trustedProxyRanges } from './ip-allowlist.js';
import { applyRateLimit } from './rate-limit.js';

/**
 * The first onRequest hook of the /v1 scope: the API key, the IP allow-list, then the rate limit,
 * in that order of refusal; every later hook and handler has an identity. The key's lookup and the
 * request's count are one statement, shared with the requests arriving together
 * (gateway/store/rate-limits.ts), so a request the allow-list
 * refuses gives its count back: a stolen key used from elsewhere cannot spend the merchant's budget.
 */
export function installAdmission(
  api: FastifyInstance, deps: { store: GatewayStore; clock: Clock; config: Config },
): void {
  const trusted = trustedProxyRanges(deps.config.trustedProxies);
  api.addHook('onRequest', async (request, reply) => {
    const at = deps.clock.now();
    const { identity, limit, counts } = await authenticate(deps.store, request, deps.config.rateLimitPerMinute, at);
    rememberIdentity(request, identity);
    try {
      refuseOutsideAllowlist(request, identity, trusted);
    } catch (err) {
      if (counts.admitted) await deps.store.uncountRequest(identity.apiKey.id, at);
      throw err;
    }
    applyRateLimit(reply, counts, limit);
  });
}
