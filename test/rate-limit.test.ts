// Per-API-key rate limit: through HTTP on the in-process gateway and on gateway replicas sharing
// its database, and at the store with an injected clock to show the window rolling without sleeping.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { resetSeconds } from '../gateway/edge/rate-limit.js';
import { createAdmitter, type Admitter } from '../gateway/edge/admitter.js';
import { createKeyCache, createStore, type GatewayStore } from '../gateway/store/index.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { createLogger } from '../services/platform/logger.js';
import { migrate } from '../services/platform/migrate.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { startGatewayProcesses, type GatewayProcess } from './helpers/gateways.js';
import { runSvc as svc } from './helpers/svc-cli.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

type Reply = Awaited<ReturnType<typeof request>>;

function limitHeaders(r: Reply) {
  const number = (name: string) => {
    const value = r.headers.get(name);
    assert.ok(value !== null && /^\d+$/.test(value), `${name}: ${value} (HTTP ${r.status})`);
    return Number(value);
  };
  return {
    limit: number('x-ratelimit-limit'),
    remaining: number('x-ratelimit-remaining'),
    reset: number('x-ratelimit-reset'),
  };
}

function assertRateLimited(r: Reply, limit: number): void {
  assert.equal(r.status, 429, JSON.stringify(r.body));
  assert.equal(r.body.error.type, 'rate_limit_error');
  assert.equal(r.body.error.code, 'rate_limited');
  assert.match(r.body.request_id, /^req_/);
  assert.equal(r.body.request_id, r.headers.get('x-request-id'));
  const headers = limitHeaders(r);
  assert.equal(headers.limit, limit);
  assert.equal(headers.remaining, 0);
  const retryAfter = Number(r.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  assert.equal(headers.reset, retryAfter, 'x-ratelimit-reset and Retry-After tell the same wait');
}



describe('rate limit through HTTP', () => {
  let stack: TestStack;
  const gateways: GatewayProcess[] = [];

  const windowCount = async (keyId: string) => {
    const { rows } = await stack.query(
      'SELECT COALESCE(sum(count), 0)::int AS n FROM gateway.rate_limit_windows WHERE api_key_id = $1', [keyId],
    );
    return rows[0].n as number;
  };
  const keyWithCeiling = async (perMinute: number) => {
    const key = await stack.newMerchantKey();
    const set = await stack.manage('PUT', `/keys/${key.keyId}/rate-limit`, { per_minute: perMinute });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    return key;
  };

  before(async () => {
    stack = await startTestStack();
  });
  after(async () => {
    await Promise.all(gateways.map((g) => g.process.stop()));
    await stack?.close();
  });

  it('sends the headers on success, 404 and 422, counts down, and refuses past the ceiling with 429', async () => {
    const { keyId, secret } = await keyWithCeiling(5);
    const me = await request(stack.baseUrl, 'GET', '/v1/me', { key: secret });
    assert.equal(me.status, 200);
    const first = limitHeaders(me);
    assert.deepEqual([first.limit, first.remaining], [5, 4]);
    // Seconds, never more than the one-minute window's length.
    assert.ok(first.reset >= 1 && first.reset <= 60, `x-ratelimit-reset ${first.reset}`);

    const missing = await request(stack.baseUrl, 'GET', '/v1/payments/pay_doesnotexist', { key: secret });
    assert.equal(missing.status, 404, JSON.stringify(missing.body));
    assert.equal(limitHeaders(missing).remaining, 3);

    const invalid = await request(stack.baseUrl, 'POST', '/v1/payments', { key: secret, body: { currency: 'EUR' } });
    assert.equal(invalid.status, 422, JSON.stringify(invalid.body));
    assert.equal(limitHeaders(invalid).remaining, 2);
    assert.equal(limitHeaders(invalid).limit, 5);

    for (const expected of [1, 0]) {
      const r = await request(stack.baseUrl, 'GET', '/v1/me', { key: secret });
      assert.equal(r.status, 200);
      assert.equal(limitHeaders(r).remaining, expected);
    }
    assertRateLimited(await request(stack.baseUrl, 'GET', '/v1/me', { key: secret }), 5);
    // Refused requests, of any route, consume nothing: the stored count stays at the five admitted.
    assertRateLimited(await request(stack.baseUrl, 'GET', '/v1/payments/pay_doesnotexist', { key: secret }), 5);
    assert.equal(await windowCount(keyId), 5);
  });

  it('leaves other keys alone and applies the deployment ceiling to keys without their own', async () => {
    const limited = await keyWithCeiling(1);
    await request(stack.baseUrl, 'GET', '/v1/me', { key: limited.secret });
    assertRateLimited(await request(stack.baseUrl, 'GET', '/v1/me', { key: limited.secret }), 1);

    const other = await stack.newMerchantKey();
    const r = await request(stack.baseUrl, 'GET', '/v1/me', { key: other.secret });
    assert.equal(r.status, 200);
    // startTestStack leaves RATE_LIMIT_PER_MINUTE unset: the configured default applies.
    assert.equal(limitHeaders(r).limit, 1000);
    assert.equal(limitHeaders(r).remaining, 999);
  });

  it('does not count or label requests that fail authentication', async () => {
    const r = await request(stack.baseUrl, 'GET', '/v1/me', { key: 'svc_sk_test_unknown' });
    assert.equal(r.status, 401);
    assert.equal(r.headers.get('x-ratelimit-limit'), null);
  });

  it('manages a key\'s ceiling: set, back to default with null, audited; unknown key 404; bad values 422', async () => {
    const { keyId, secret } = await stack.newMerchantKey();
    const set = await stack.manage('PUT', `/keys/${keyId}/rate-limit`, { per_minute: 5000 });
    assert.equal(set.status, 200);
    assert.equal(set.body.id, keyId);
    assert.equal(set.body.object, 'api_key');
    assert.equal(set.body.rate_limit_per_minute, 5000);
    assert.equal(limitHeaders(await request(stack.baseUrl, 'GET', '/v1/me', { key: secret })).limit, 5000);

    const reset = await stack.manage('PUT', `/keys/${keyId}/rate-limit`, { per_minute: null });
    assert.equal(reset.status, 200);
    assert.equal(reset.body.rate_limit_per_minute, null);
    assert.equal(limitHeaders(await request(stack.baseUrl, 'GET', '/v1/me', { key: secret })).limit, 1000);

    const { rows } = await stack.query(
      `SELECT actor, data FROM gateway.audit_log WHERE action = 'api_key.rate_limit_updated' AND target_id = $1
       ORDER BY created_at, id`,
      [keyId],
    );
    assert.deepEqual(rows, [
      { actor: 'operator', data: { from: null, to: 5000 } },
      { actor: 'operator', data: { from: 5000, to: null } },
    ]);

    const unknown = await stack.manage('PUT', '/keys/key_doesnotexist/rate-limit', { per_minute: 5 });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'resource_not_found');

    for (const body of [{ per_minute: 0 }, { per_minute: 2.5 }, { per_minute: '5' }, { per_minute: true }, {},
      { per_minute: 10_000_001 }]) {
      const bad = await stack.manage('PUT', `/keys/${keyId}/rate-limit`, body);
      assert.equal(bad.status, 422, `${JSON.stringify(body)}: ${JSON.stringify(bad.body)}`);
      assert.equal(bad.body.error.code, 'validation_error');
      assert.equal(bad.body.error.param, 'per_minute');
    }
  });

  it('svc key rate-limit sets and clears the ceiling', async () => {
    const { keyId } = await stack.newMerchantKey();
    const env = { SVC_URL: stack.baseUrl, SVC_OPERATOR_TOKEN: stack.operatorToken };
    const set = await svc(['key', 'rate-limit', keyId, '--per-minute', '250', '--json'], env);
    assert.equal(set.code, 0, set.stderr);
    assert.equal(JSON.parse(set.stdout).rate_limit_per_minute, 250);

    const human = await svc(['key', 'rate-limit', keyId, '--per-minute', 'default'], env);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, new RegExp(`^key ${keyId} .*deployment default`, 'm'));

    const usage = await svc(['key', 'rate-limit', keyId, '--per-minute', 'lots'], env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--per-minute must be/);

    const unknown = await svc(['key', 'rate-limit', 'key_doesnotexist', '--per-minute', '5', '--json'], env);
    assert.equal(unknown.code, 1);
    assert.equal(JSON.parse(unknown.stdout).error.code, 'resource_not_found');
  });

  it('shares one budget across gateway replicas', async () => {
    gateways.push(...await startGatewayProcesses(stack, 2));
    const urls = [stack.baseUrl, gateways[0].baseUrl, gateways[1].baseUrl];
    const { secret } = await keyWithCeiling(6);
    for (let i = 0; i < 6; i++) {
      const r = await request(urls[i % 3], 'GET', '/v1/me', { key: secret });
      assert.equal(r.status, 200, `request ${i + 1} on gateway ${i % 3}`);
      assert.equal(limitHeaders(r).remaining, 5 - i, `request ${i + 1} on gateway ${i % 3}`);
    }
    for (const url of urls) assertRateLimited(await request(url, 'GET', '/v1/me', { key: secret }), 6);
  });

  it('enforces RATE_LIMIT_PER_MINUTE on keys without their own ceiling', async () => {
    const [strict] = await startGatewayProcesses(stack, 1, { RATE_LIMIT_PER_MINUTE: '3' });
    gateways.push(strict);
    const { secret } = await stack.newMerchantKey();
    for (const expected of [2, 1, 0]) {
      const r = await request(strict.baseUrl, 'GET', '/v1/me', { key: secret });
      assert.equal(r.status, 200);
      assert.deepEqual([limitHeaders(r).limit, limitHeaders(r).remaining], [3, expected]);
    }
    assertRateLimited(await request(strict.baseUrl, 'GET', '/v1/me', { key: secret }), 3);
  });
});

describe('rate-limit counts with an injected clock', () => {
  let testDb: TestDatabase;
  let pool: Pool;
  let store: GatewayStore;
  // A minute boundary, so offsets below read as "seconds into the minute".
  const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
  const at = (ms: number) => new Date(T0 + ms);
  // The admitter's own clock, for its reconciliation (which sweeps minutes before the previous one).
  let clockMs = T0;
  let admitter: Admitter;

  const newKey = async () => {
    const { project } = await store.createMerchant('Clock merchant', 'test', at(0));
    const created = await store.createKey(project.id, 'test', 'clock key', 'test', at(0));
    if ('refused' in created) throw new Error(`key refused: ${created.refused}`);
    return { id: created.key.id, secret: created.secret };
  };
  // Admission with the deployment's ceiling `limit` (these keys have none of their own).
  const count = async (key: { secret: string }, limit: number, t: Date) => (await admitter.admit(key.secret, limit, t))!.counts;
  const rows = async ({ id: keyId }: { id: string }) =>
    (await pool.query(
      'SELECT window_start, count FROM rate_limit_windows WHERE api_key_id = $1 ORDER BY window_start', [keyId],
    )).rows.map((r) => ({ minute: (new Date(r.window_start).getTime() - T0) / 60_000, count: r.count }));
  const reconcileAt = (t: Date) => {
    clockMs = t.getTime();
    return admitter.reconcile();
  };

  before(async () => {
    testDb = await createTestDatabase();
    pool = createPool(testDb.url, 'gateway', 12);
    await migrate(pool, 'gateway', 'gateway');
    // Not started: no listener and no timer (the test reconciles when it says so). Nothing but this
    // store changes keys here, so its cache is switched on by hand.
    const keyCache = createKeyCache();
    keyCache.setLive(true);
    store = createStore(pool, (change) => keyCache.drop(change));
    admitter = createAdmitter({
      pool, store, keyCache, clock: { now: () => new Date(clockMs) }, logger: createLogger('test', 'silent'),
    });
  });
  after(async () => {
    await pool?.end();
    await testDb?.drop();
  });

  it('returns capacity as the window rolls, and refused requests do not count', async () => {
    const key = await newKey();
    for (let i = 1; i <= 5; i++) {
      const c = await count(key, 5, at(50_000));
      assert.deepEqual(c, { admitted: true, previous: 0, current: i, elapsedMs: 50_000 });
    }
    const refused = await count(key, 5, at(59_999));
    assert.equal(refused.admitted, false);
    assert.deepEqual(await rows(key), [{ minute: 0, count: 5 }]);

    // Next minute, first instant: the previous minute still fully inside the window.
    const boundary = await count(key, 5, at(60_000));
    assert.deepEqual(boundary, { admitted: false, previous: 5, current: 0, elapsedMs: 0 });
    assert.equal(resetSeconds(boundary, 5), 12, 'one fifth of the previous minute must roll out');
    assert.equal((await count(key, 5, at(60_000 + 11_999))).admitted, false);
    const back = await count(key, 5, at(60_000 + 12_000));
    assert.deepEqual(back, { admitted: true, previous: 5, current: 1, elapsedMs: 12_000 });
    assert.equal((await count(key, 5, at(60_000 + 12_001))).admitted, false);
    // By 36 s in, 2/5 of the previous minute's five remain: two in total, one more fits.
    assert.equal((await count(key, 5, at(60_000 + 36_000))).admitted, true);
    assert.equal((await count(key, 5, at(60_000 + 48_000))).admitted, true);
    assert.deepEqual(await rows(key), [{ minute: 0, count: 5 }, { minute: 1, count: 3 }]);

    // Long idle: everything has rolled out, and the reconciliation sweeps the minutes before the previous one.
    const later = await count(key, 5, at(10 * 60_000 + 1));
    assert.deepEqual(later, { admitted: true, previous: 0, current: 1, elapsedMs: 1 });
    await reconcileAt(at(10 * 60_000 + 1));
    assert.deepEqual(await rows(key), [{ minute: 10, count: 1 }]);
  });

  it('keeps each key\'s count apart', async () => {
    const [a, b] = [await newKey(), await newKey()];
    await count(a, 1, at(5_000));
    assert.equal((await count(a, 1, at(5_000))).admitted, false);
    assert.equal((await count(b, 1, at(5_000))).admitted, true);
  });

  it('admits exactly the ceiling when many requests race for the last slots', async () => {
    const key = await newKey();
    // Four requests in the previous minute, weighing half at 30 s in.
    for (let i = 0; i < 4; i++) await count(key, 7, at(-30_000));
    const results = await Promise.all(Array.from({ length: 30 }, () => count(key, 7, at(30_000))));
    assert.equal(results.filter((r) => r.admitted).length, 5); // 7 − 4·½
    assert.deepEqual(await rows(key), [{ minute: -1, count: 4 }, { minute: 0, count: 5 }]);
  });

  // Requests of one key that arrive while its count is being written share the next statement:
  // counted by wrapping the pool's query while they run.
  const statementsDuring = async <T>(work: () => Promise<T>): Promise<{ result: T; statements: number }> => {
    const query = pool.query;
    let statements = 0;
    pool.query = ((...args: Parameters<Pool['query']>) => {
      statements++;
      return (query as (...a: unknown[]) => unknown).apply(pool, args);
    }) as Pool['query'];
    try {
      return { result: await work(), statements };
    } finally {
      pool.query = query;
    }
  };

  it('admits exactly L of N concurrent requests of one key in fewer statements than requests, each its own count', async () => {
    const key = await newKey();
    await count(key, 7, at(20_000)); // an existing row: the statement counts on from it
    const { result, statements } = await statementsDuring(() =>
      Promise.all(Array.from({ length: 20 }, () => count(key, 7, at(20_000)))));
    assert.ok(statements < 20, `${statements} statements for 20 requests`);
    // In call order, as one after the other: the first six fit (2..7), the rest see 7 and are refused.
    assert.deepEqual(result.map((c) => c.admitted), Array.from({ length: 20 }, (_, i) => i < 6));
    assert.deepEqual(result.map((c) => c.current), Array.from({ length: 20 }, (_, i) => Math.min(i + 2, 7)));
    assert.deepEqual(await rows(key), [{ minute: 0, count: 7 }]);
  });

  it('counts from memory, without a statement, a key whose flush interval\'s share is a request or more', async () => {
    const key = await newKey();
    // 60,000 a minute: a share of 100 requests per 100 ms flush interval.
    assert.equal((await count(key, 60_000, at(1_000))).current, 1, 'the first request reads the key\'s minutes');
    await reconcileAt(at(1_000));
    const { result, statements } = await statementsDuring(async () => {
      const counts = [];
      for (let i = 0; i < 50; i++) counts.push(await count(key, 60_000, at(2_000)));
      return counts;
    });
    assert.equal(statements, 0);
    assert.deepEqual(result.map((c) => c.current), Array.from({ length: 50 }, (_, i) => i + 2));
    assert.deepEqual(await rows(key), [{ minute: 0, count: 1 }], 'not yet written');
    await reconcileAt(at(2_000));
    assert.deepEqual(await rows(key), [{ minute: 0, count: 51 }]);
    // Past its share without a reconciliation, a request is counted in Postgres.
    const { statements: past } = await statementsDuring(async () => {
      for (let i = 0; i < 101; i++) await count(key, 60_000, at(3_000));
    });
    assert.equal(past, 1, 'the 101st request, counted in Postgres');
    assert.deepEqual(await rows(key), [{ minute: 0, count: 152 }]);
  });

  it('counts on from a row another replica inserts while the count waits for it', async () => {
    const a = await newKey();
    const replica = await pool.connect();
    try {
      // The replica inserts a's row of this minute and has not committed when the count starts.
      await replica.query('BEGIN');
      await replica.query('INSERT INTO rate_limit_windows (api_key_id, window_start, count) VALUES ($1, $2, 3)', [a.id, at(0)]);
      const counts = Promise.all(Array.from({ length: 6 }, () => count(a, 5, at(10_000))));
      for (let waited = 0; ; waited += 20) {
        const { rows: waiting } = await pool.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`);
        if (waiting[0].n > 0) break;
        assert.ok(waited < 10_000, 'the count never waited for the replica\'s row');
        await new Promise((r) => setTimeout(r, 20));
      }
      await replica.query('COMMIT');
      const result = await counts;
      assert.equal(result.filter((c) => c.admitted).length, 2, 'three counted by the replica, ceiling 5');
      assert.deepEqual(result.map((c) => c.current).sort(), [4, 5, 5, 5, 5, 5]);
      assert.deepEqual(await rows(a), [{ minute: 0, count: 5 }]);
    } finally {
      replica.release();
    }
  });

  it('refuses an unknown or revoked key per caller, counts each key apart, and stamps the keys used', async () => {
    const [a, b, revoked] = [await newKey(), await newKey(), await newKey()];
    await store.revokeKey(revoked.id, 'test', at(0));
    const secrets = [a.secret, 'svc_sk_test_unknown', b.secret, revoked.secret, a.secret, b.secret, a.secret];
    const result = await Promise.all(secrets.map((secret) => admitter.admit(secret, 2, at(10_000))));
    assert.deepEqual(result.map((r) => r && [r.identity.apiKey.id, r.counts.admitted, r.counts.current]), [
      [a.id, true, 1], undefined, [b.id, true, 1], undefined, [a.id, true, 2], [b.id, true, 2], [a.id, false, 2],
    ]);
    await reconcileAt(at(10_000));
    assert.deepEqual(await rows(a), [{ minute: 0, count: 2 }]);
    assert.deepEqual(await rows(revoked), []);
    const used = await pool.query('SELECT id, last_used_at FROM api_keys WHERE id = ANY($1) ORDER BY id', [[a.id, b.id, revoked.id]]);
    assert.deepEqual(used.rows.map((r) => r.last_used_at && new Date(r.last_used_at).getTime()).filter(Boolean), [T0 + 10_000, T0 + 10_000]);
  });
});

describe('rate-limit counts reconciled after requests only', () => {
  let testDb: TestDatabase;
  let pool: Pool;
  let admitter: Admitter;
  let store: GatewayStore;
  // Each reconciliation starts by reading the gateway's clock: counted to see whether one ran.
  let clockReads = 0;
  const FLUSH_MS = 50;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  before(async () => {
    testDb = await createTestDatabase();
    pool = createPool(testDb.url, 'gateway', 4);
    await migrate(pool, 'gateway', 'gateway');
    const keyCache = createKeyCache();
    store = createStore(pool, (change) => keyCache.drop(change));
    admitter = createAdmitter({
      pool, store, keyCache, flushMs: FLUSH_MS, logger: createLogger('test', 'silent'),
      clock: { now: () => { clockReads++; return new Date(); } },
    });
    await admitter.start();
  });
  after(async () => {
    await admitter?.stop();
    await pool?.end();
    await testDb?.drop();
  });

  it('does no reconciliation while idle, and writes a request\'s count within a flush interval', async () => {
    const { project } = await store.createMerchant('Idle merchant', 'test', new Date());
    const created = await store.createKey(project.id, 'test', 'idle key', 'test', new Date());
    if ('refused' in created) throw new Error(`key refused: ${created.refused}`);
    const reads = clockReads;
    await sleep(FLUSH_MS * 8);
    assert.equal(clockReads, reads, 'an idle admitter reconciled');

    // A ceiling of 60,000 a minute is a share of 50 per interval. The key's first request is counted
    // in Postgres (this replica does not know its minute yet); the next one in memory, until written.
    const written = async () => (await pool.query(
      'SELECT COALESCE(sum(count), 0)::int AS n FROM rate_limit_windows WHERE api_key_id = $1', [created.key.id],
    )).rows[0].n as number;
    assert.equal((await admitter.admit(created.secret, 60_000, new Date()))?.counts.admitted, true);
    await sleep(FLUSH_MS * 4);
    assert.equal(await written(), 1);
    assert.equal((await admitter.admit(created.secret, 60_000, new Date()))?.counts.admitted, true);
    assert.equal(await written(), 1, 'the second request is counted in memory first');
    await sleep(FLUSH_MS * 4);
    assert.equal(await written(), 2);

    const after = clockReads;
    await sleep(FLUSH_MS * 8);
    assert.equal(clockReads, after, 'the admitter went on reconciling after the last request');
  });
});
