import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPool, withTransaction, type Pool } from '../services/platform/db.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

// A part holds a transaction's client while it awaits other work (a provider, another part). If
// Postgres drops that connection meanwhile, the part must fail the one transaction and live on:
// an unhandled 'error' event on the checked-out client used to kill the process (payouts died in
// CI when the readiness test cut Postgres).

let db: TestDatabase;
let pool: Pool;
let admin: Pool;
before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 'public', 2);
  admin = createPool(db.url, 'public', 1);
});
after(async () => {
  await pool?.end();
  await admin?.end();
  await db?.drop();
});

test('a connection killed between two statements of a transaction rejects it; the pool serves the next one', async () => {
  const crashes: unknown[] = [];
  const onUncaught = (err: unknown) => crashes.push(err);
  process.on('uncaughtException', onUncaught);
  try {
    const failed = withTransaction(pool, async (client) => {
      const { rows: [{ pid }] } = await client.query('SELECT pg_backend_pid() AS pid');
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      // The termination arrives while no statement runs on the client, as when it awaits a provider.
      await new Promise((r) => setTimeout(r, 300));
      await client.query('SELECT 1');
    });
    await assert.rejects(failed);
    assert.deepEqual(crashes, [], 'no error escaped as an uncaught exception');
  } finally {
    process.off('uncaughtException', onUncaught);
  }
  const next = await withTransaction(pool, async (client) => (await client.query('SELECT 2 AS two')).rows[0].two);
  assert.equal(next, 2);
  assert.equal(pool.totalCount <= 2, true);
});
