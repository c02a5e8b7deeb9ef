// Postgres access of the gateway (schema `gateway`), one file per topic.
import type { Pool } from '../../services/shared/index.js';
import { createAllowlistStore } from './allowlists.js';
import { createIdempotencyStore } from './idempotency.js';
import { createKeyStore } from './keys.js';
import { createRateLimitStore } from './rate-limits.js';

export type { AllowlistView } from './allowlists.js';
export type { ClaimResult, IdempotencyScope } from './idempotency.js';
export type { ApiKeyView, Identity, Mode } from './keys.js';
export { KEY_PREFIX } from './keys.js';
export type { Admission, KeyWithRateLimit, WindowCounts } from './rate-limits.js';
export { RATE_WINDOW_MS } from './rate-limits.js';

export function createStore(pool: Pool) {
  return {
    ...createKeyStore(pool),
    ...createIdempotencyStore(pool),
    ...createRateLimitStore(pool),
    ...createAllowlistStore(pool),
  };
}

export type GatewayStore = ReturnType<typeof createStore>;
