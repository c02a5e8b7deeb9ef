import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { readdir } from 'node:fs/promises';
import { createPool } from '../services/platform/db.js';
import { migrate } from '../services/platform/migrate.js';
import { projectPath } from '../services/platform/paths.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
});
after(() => db?.drop());

test('replicas starting together apply each migration exactly once, under the advisory lock', async () => {
  const pools = Array.from({ length: 4 }, () => createPool(db.url, 'payments', 2));
  try {
    const files = (await readdir(projectPath('services/payments/migrations'))).filter((f) => /\.(sql|shared)$/.test(f)).sort();
    assert.ok(files.length > 0);
    const results = await Promise.all(pools.map((p) => migrate(p, 'payments', 'services/payments')));
    assert.deepEqual(results.flat().sort(), files, 'each applied by one replica; the others found it done');
    const { rows } = await pools[0].query('SELECT version FROM schema_migrations ORDER BY version');
    assert.deepEqual(rows.map((r) => r.version), files);
    // A second run is a no-op.
    assert.deepEqual(await migrate(pools[0], 'payments', 'services/payments'), []);
  } finally {
    await Promise.all(pools.map((p) => p.end()));
  }
});

test('a part sees only its own schema through its pool', async () => {
  const gateway = createPool(db.url, 'gateway', 1);
  const payments = createPool(db.url, 'payments', 1);
  try {
    await migrate(gateway, 'gateway', 'gateway');
    await migrate(payments, 'payments', 'services/payments');
    await assert.rejects(payments.query('SELECT * FROM api_keys'), /relation "api_keys" does not exist/);
    await payments.query('SELECT * FROM payments LIMIT 1');
  } finally {
    await Promise.all([gateway.end(), payments.end()]);
  }
});

test('a part\'s pool never JIT-compiles a statement, however costly its estimate', async () => {
  const payments = createPool(db.url, 'payments', 1);
  try {
    assert.equal((await payments.query('SHOW jit')).rows[0].jit, 'off');
    // Estimated far above jit_above_cost, as a fresh table's guesses can make a short statement.
    const { rows } = await payments.query('EXPLAIN (FORMAT JSON) SELECT sum(g) FROM generate_series(1, 100000000) AS g');
    const plan = rows[0]['QUERY PLAN'][0];
    assert.ok(plan.Plan['Total Cost'] > 1_000_000, `estimated ${plan.Plan['Total Cost']}`);
    assert.equal(plan.JIT, undefined, 'no JIT compilation planned');
  } finally {
    await payments.end();
  }
});

test('`npm run migrate` applies every part\'s schema and exits; a second run finds them up to date', async () => {
  const { spawnPart } = await import('./helpers/processes.js');
  const run = async () => {
    const part = spawnPart('migrate', 'all-in-one/migrate.js', { DATABASE_URL: db.url });
    const code = await new Promise<number | null>((resolve) => part.child.once('exit', resolve));
    return { code, output: part.output() };
  };
  const first = await run();
  assert.equal(first.code, 0, first.output);
  for (const part of ['gateway', 'payments', 'routing-risk', 'ledger', 'payouts', 'webhooks']) {
    assert.match(first.output, new RegExp(`^${part}: `, 'm'));
  }
  assert.match(first.output, /^routing-risk: 0001-routing-risk\.sql(, |$)/m);
  const second = await run();
  assert.equal(second.code, 0, second.output);
  assert.match(second.output, /^gateway: up to date$/m);
  assert.match(second.output, /^routing-risk: up to date$/m);
});
