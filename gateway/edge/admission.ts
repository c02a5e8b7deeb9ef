import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../services/platform/clock.js';
import type { Config } from '../../services/platform/config.js';
import { authenticate } from '../auth/authenticate.js';
import { rememberIdentity } from '../auth/identity.js';
import type { Admitter } from './admitter.js';
import { refuseOutsideAllowlist, trustedProxyRanges } from './ip-allowlist.js';
import { applyRateLimit } from './rate-limit.js';

/**
 * The first onRequest hook of the /v1 scope: the API key, the IP allow-list, then the rate limit,
 * in that order of refusal; every later hook and handler has an identity. The key's identity and
 * the request's count come from memory where they can (admitter.ts), so a request the allow-list
 * refuses gives its count back: a stolen key used from elsewhere cannot spend the merchant's budget.
 */
export function installAdmission(
  api: FastifyInstance, deps: { admitter: Admitter; clock: Clock; config: Config },
): void {
  const trusted = trustedProxyRanges(deps.config.trustedProxies);
  api.addHook('onRequest', async (request, reply) => {
    const at = deps.clock.now();
    const { identity, limit, counts } = await authenticate(deps.admitter, request, deps.config.rateLimitPerMinute, at);
    rememberIdentity(request, identity);
    try {
      refuseOutsideAllowlist(request, identity, trusted);
    } catch (err) {
      if (counts.admitted) deps.admitter.uncount(identity.apiKey.id, at);
      throw err;
    }
    applyRateLimit(reply, counts, limit);
  });
}
