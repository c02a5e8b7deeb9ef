import type { FastifyInstance } from 'fastify';
import { DomainError, type Clock } from '../../services/shared/index.js';
import type { GatewayStore } from '../store/index.js';

// Same upper bound as RATE_LIMIT_PER_MINUTE, so a key's own ceiling is never out of a range the
// deployment-wide one could not be set to.
const MAX_PER_MINUTE = 10_000_000;

/**
 * `PUT /manage/v1/keys/:id/rate-limit` with `{per_minute: N | null}`: raises or lowers one key's
 * ceiling, or with null returns it to the deployment's RATE_LIMIT_PER_MINUTE. Takes effect on the
 * key's next request on every replica (the identity is read from Postgres per request).
 */
export function rateLimitRoutes(scoped: FastifyInstance, store: GatewayStore, clock: Clock, actor: string): void {
  scoped.put<{ Params: { id: string }; Body: { per_minute: unknown } }>(
    '/keys/:id/rate-limit',
    {
      schema: {
        body: { type: 'object', additionalProperties: false, required: ['per_minute'], properties: { per_minute: {} } },
      },
    },
    async (request) => {
      // Checked here rather than by type in the schema: the management API's validator coerces,
      // and "5" or true silently becoming a ceiling is not what an operator meant.
      const perMinute = request.body.per_minute;
      const valid = perMinute === null ||
        (typeof perMinute === 'number' && Number.isInteger(perMinute) && perMinute >= 1 && perMinute <= MAX_PER_MINUTE);
      if (!valid) {
        throw new DomainError(
          'validation_error',
          `per_minute must be a whole number from 1 to ${MAX_PER_MINUTE}, or null for the deployment default`,
          { param: 'per_minute' },
        );
      }
      const key = await store.setKeyRateLimit(request.params.id, perMinute as number | null, actor, clock.now());
      if (!key) throw new DomainError('resource_not_found', `No API key ${request.params.id}`, { param: 'id' });
      return key;
    },
  );
}
