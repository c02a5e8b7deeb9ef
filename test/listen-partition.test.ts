// The in-memory caches fed by Postgres notifications (routing-risk's planning cache, the gateway's
// key cache) across a network partition between their process and Postgres: packets dropped, no
// error and no end ever reported on the LISTEN connection. Without a heartbeat such a cache would
// stay live and miss every change made meanwhile; each must go off within two heartbeats and come
// back, empty, once the network heals. Real Postgres behind a TCP proxy the test cuts.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { createAdmitter } from '../gateway/edge/admitter.js';
import { createKeyCache, createStore } from '../gateway/store/index.js';
import { systemClock } from '../services/platform/clock.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { createLogger } from '../services/platform/logger.js';
import { migrate } from '../services/platform/migrate.js';
import { LISTEN_HEARTBEAT_MS } from '../services/platform/notification-listener.js';
import { createPlanningCache } from '../services/routing-risk/planning-cache.js';
import { planningListener } from '../services/routing-risk/planning-listener.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { startPartitionProxy, type PartitionProxy } from './helpers/partition-proxy.js';

async function until(what: string, boundMs: number, done: () => boolean): Promise<number> {
  const started = performance.now();
  while (!done()) {
    assert.ok(performance.now() - started < boundMs, `timed out waiting for ${what} (${boundMs} ms)`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return performance.now() - started;
}

describe('notification-fed caches across a network partition', () => {
  let testDb: TestDatabase;
  let proxy: PartitionProxy;
  const pools: Pool[] = [];
  const stops: Array<() => Promise<void>> = [];
  const logger = createLogger('test', 'silent');

  /** A pool whose connections go through the proxy. */
  const proxied = (schema: string) => {
    const url = Object.assign(new URL(testDb.url), { host: `127.0.0.1:${proxy.port}` }).toString();
    const pool = createPool(url, schema, 2);
    pools.push(pool);
    return pool;
  };

  before(async () => {
    testDb = await createTestDatabase();
    const server = new URL(testDb.url);
    proxy = await startPartitionProxy(server.hostname, Number(server.port || 5432));
    for (const [schema, dir] of [['gateway', 'gateway'], ['routing_risk', 'services/routing-risk']]) {
      const pool = createPool(testDb.url, schema, 2);
      await migrate(pool, schema, dir);
      await pool.end();
    }
  });
  after(async () => {
    proxy?.heal();
    for (const stop of stops) await stop();
    for (const pool of pools) await pool.end().catch(() => undefined);
    await proxy?.close();
    await testDb?.drop();
  });

  it('the planning cache and the key cache go off within two heartbeats and come back after healing', async () => {
    const planning = createPlanningCache();
    const listener = planningListener(proxied('routing_risk'), planning, logger, 100);
    await listener.start();
    stops.push(() => listener.stop());

    const keyCache = createKeyCache();
    const gatewayPool = proxied('gateway');
    const admitter = createAdmitter({
      pool: gatewayPool, store: createStore(gatewayPool), keyCache, clock: systemClock, logger, retryMs: 100,
    });
    await admitter.start();
    stops.push(() => admitter.stop());
    await until('both caches live', 5_000, () => planning.live && keyCache.live);

    proxy.cut();
    // Two heartbeats, and room for a loaded machine's late timers.
    const bound = 2 * LISTEN_HEARTBEAT_MS + 1_500;
    const planningOff = await until('the planning cache to go off', bound, () => !planning.live);
    const keysOff = await until('the key cache to go off', bound, () => !keyCache.live);
    console.log(`partition: planning cache off after ${planningOff.toFixed(0)} ms, key cache after ${keysOff.toFixed(0)} ms`);

    proxy.heal();
    await until('both caches live again', 10_000, () => planning.live && keyCache.live);
  });
});
