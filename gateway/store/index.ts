// Postgres access of the gateway (schema `gateway`), one file per topic.
import type { Pool } from '../../services/shared/index.js';
import { createKeyStore } from './keys.js';

export type { ApiKeyView, Identity, Mode } from './keys.js';
export { KEY_PREFIX } from './keys.js';

export function createStore(pool: Pool) {
  return { ...createKeyStore(pool) };
}

export type GatewayStore = ReturnType<typeof createStore>;
