import type { Clock } from '../services/platform/clock.js';
import type { Pool } from '../services/platform/db.js';
import { createStore } from './store/index.js';

/**
 * First start of a fresh local install: one merchant, its default project and a test key,
 * so `npm start` ends with something a person can curl. Returns undefined when merchants exist.
 */
export async function bootstrapLocal(pool: Pool, clock: Clock) {
  const store = createStore(pool);
  if (await store.hasMerchants()) return undefined;
  const { merchant, project } = await store.createMerchant('Local merchant', 'bootstrap', clock.now());
  const created = await store.createKey(project.id, 'test', 'Local test key', 'bootstrap', clock.now());
  if ('refused' in created) throw new Error(`bootstrap key refused: ${created.refused}`);
  return { merchant, project, key: created.key, secret: created.secret };
}

/** After a restart: the first project, so the start-up text names real ids instead of a placeholder. */
export async function localProject(pool: Pool) {
  return createStore(pool).firstProject();
}
