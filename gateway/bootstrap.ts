import type { Clock } from '../services/platform/clock.js';
import type { Config } from '../services/platform/config.js';
import type { Pool } from '../services/platform/db.js';
import { issueOwnerLink } from './dashboard/index.js';
import { createStore } from './store/index.js';

/**
 * First start of a fresh local install: one merchant, its default project, a test key and a
 * one-time owner sign-in link, so `npm start` ends with something a person can curl and a dashboard
 * that shows what they curled. Returns undefined when merchants exist.
 */
export async function bootstrapLocal(pool: Pool, clock: Clock, config: Pick<Config, 'publicBaseUrl'>) {
  const store = createStore(pool);
  if (await store.hasMerchants()) return undefined;
  const { merchant, project } = await store.createMerchant('Local merchant', 'bootstrap', clock.now());
  const created = await store.createKey(project.id, 'test', 'Local test key', 'bootstrap', clock.now());
  if ('refused' in created) throw new Error(`bootstrap key refused: ${created.refused}`);
  const ownerLink = await issueOwnerLink({ store, clock, config }, merchant.id, 'bootstrap');
  return { merchant, project, key: created.key, secret: created.secret, ownerLink: ownerLink! };
}

/**
 * After a restart: the first project, so the start-up text names real ids instead of a placeholder,
 * and the emails of its merchant's owners, whom it tells to sign in.
 */
export async function localProject(pool: Pool) {
  const store = createStore(pool);
  const project = await store.firstProject();
  if (!project) return undefined;
  const owners = (await store.listMembers(project.merchantId)).filter((m) => m.role === 'owner').map((m) => m.email);
  return { ...project, owners };
}
