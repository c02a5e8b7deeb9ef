import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPool, migrate } from '../services/shared/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
});
after(() => db?.drop());

test('replicas starting together apply each migration exactly once, under the advisory lock', async () => {
  const pools = Array.from({ length: 4 }, () => createPool(db.url, 'payments', 2));
  try {
    const results = await Promise.all(pools.map((p) => migrate(p, 'payments', 'services/payments')));
    const applied = results.flat();
    assert.deepEqual(applied, ['0001-payments.sql'], 'one replica applied it, the others found it done');
    const { rows } = await pools[0].query('SELECT version FROM schema_migrations');
    assert.deepEqual(rows.map((r) => r.version), ['0001-payments.sql']);
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
