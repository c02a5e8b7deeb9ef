// The dashboard's request log (gateway/edge/request-log.ts) on real Postgres: requests answered
// together are written together, after their answers, each as its own row.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { rememberIdentity } from '../gateway/auth/identity.js';
import { installRequestLog } from '../gateway/edge/request-log.js';
import { errorSentBy } from '../gateway/http/errors.js';
import { createStore, type GatewayStore, type Identity } from '../gateway/store/index.js';
import { systemClock } from '../services/platform/clock.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { sha256Hex } from '../services/platform/ids.js';
import { migrate } from '../services/platform/migrate.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

describe('request log', () => {
  let testDb: TestDatabase;
  let pool: Pool;
  let store: GatewayStore;
  let identity: Identity;

  before(async () => {
    testDb = await createTestDatabase();
    pool = createPool(testDb.url, 'gateway', 4);
    await migrate(pool, 'gateway', 'gateway');
    store = createStore(pool);
    const { project } = await store.createMerchant('Log merchant', 'test', new Date());
    const created = await store.createKey(project.id, 'test', 'log key', 'test', new Date());
    if ('refused' in created) throw new Error(`key refused: ${created.refused}`);
    identity = (await store.identitiesByHash([sha256Hex(created.secret)])).get(sha256Hex(created.secret))!;
  });
  after(async () => {
    await pool?.end();
    await testDb?.drop();
  });

  it('writes requests answered together in fewer statements than requests, one row each', async () => {
    const app = Fastify();
    app.addHook('onRequest', async (request) => rememberIdentity(request, identity));
    installRequestLog(app, { store, clock: systemClock, errorSentBy });
    app.get('/v1/things/:n', async () => ({ ok: true }));
    await app.ready();

    const query = pool.query;
    let writes = 0;
    pool.query = ((...args: unknown[]) => {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string }).text ?? '';
      if (text.includes('INSERT INTO request_log')) writes++;
      return (query as (...a: unknown[]) => unknown).apply(pool, args);
    }) as Pool['query'];
    try {
      const replies = await Promise.all(Array.from({ length: 20 }, (_, n) => app.inject({ method: 'GET', url: `/v1/things/${n}?q=1` })));
      assert.ok(replies.every((r) => r.statusCode === 200));
      await app.close(); // waits for the log's writes under way
    } finally {
      pool.query = query;
    }
    assert.ok(writes >= 1 && writes < 20, `${writes} statements for 20 requests`);
    const { rows } = await pool.query('SELECT path, status, project_id FROM request_log WHERE project_id = $1', [identity.project.id]);
    assert.deepEqual(rows.map((r) => r.path).sort(), Array.from({ length: 20 }, (_, n) => `/v1/things/${n}`).sort());
    assert.ok(rows.every((r) => r.status === 200));
  });
});
