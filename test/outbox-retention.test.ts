import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, test } from 'node:test';
import { createPool, type Pool } from '../services/platform/db.js';
import { newId } from '../services/platform/ids.js';
import { createLogger } from '../services/platform/logger.js';
import { migrate } from '../services/platform/migrate.js';
import { OutboxPruner, pruneOutbox } from '../services/platform/outbox-retention.js';
import { OutboxRelay, enqueueEvent } from '../services/platform/outbox.js';
import { type EventEnvelope } from '../services/contract/index.js';
import { createTestBus, type TestBus } from './helpers/bus.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { eventually } from './helpers/eventually.js';

// A producing part's outbox on real Postgres (the payments part's migrated schema), its rows
// published by the real relay to the real JetStream: rows published longer ago than the retention
// go, newer ones, unpublished ones and parked ones stay. Without NATS_URL (a laptop) the relay
// publishes to the in-process bus: what is pruned is the same.

const logger = createLogger('test', 'silent');
const HOUR = 3_600_000;
const PREFIX = `retention${randomBytes(4).toString('hex')}`;

let db: TestDatabase;
let pool: Pool;
let testBus: TestBus;

before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 'payments', 4);
  await migrate(pool, 'payments', 'services/payments');
  testBus = await createTestBus();
});
after(async () => {
  await testBus?.close();
  await pool?.end();
  await db?.drop();
});
beforeEach(() => pool.query('DELETE FROM outbox'));

function event(): EventEnvelope {
  const id = newId('pay');
  return {
    id: newId('evt'), type: 'payment.successful', mode: 'test', merchant_id: 'mer_1', project_id: 'prj_1',
    created_at: new Date().toISOString(), data: { object: { id, object: 'payment' } },
  };
}

/** `n` events enqueued and published by the relay; returns their ids. */
async function published(n: number): Promise<string[]> {
  const events = Array.from({ length: n }, event);
  for (const e of events) await enqueueEvent(pool, e);
  const relay = new OutboxRelay({ pool, bus: testBus.bus, logger, subjectPrefix: testBus.nats?.subjectPrefix ?? PREFIX, pollMs: 50 });
  await relay.drain();
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL');
  assert.equal(rows[0].n, 0, 'the relay published every event');
  return events.map((e) => e.id);
}

/** Moves rows' publication `hours` into the past, as if the relay had sent them then. */
async function age(ids: string[], hours: number): Promise<void> {
  await pool.query(`UPDATE outbox SET published_at = now() - make_interval(hours => $2) WHERE event_id = ANY($1)`, [ids, hours]);
}

async function remaining(): Promise<string[]> {
  const { rows } = await pool.query('SELECT event_id FROM outbox ORDER BY seq');
  return rows.map((r) => r.event_id);
}

test('rows published longer ago than the retention are deleted, in batches; recent, unpublished and parked rows stay', async () => {
  const old = await published(5);
  const recent = await published(2);
  await age(old, 200);
  await age(recent, 100);
  const waiting = event();
  const parked = event();
  await enqueueEvent(pool, waiting);
  await enqueueEvent(pool, parked);
  await pool.query(`UPDATE outbox SET created_at = now() - interval '300 hours' WHERE event_id = ANY($1)`, [[waiting.id, parked.id]]);
  await pool.query(`UPDATE outbox SET parked_at = now() - interval '300 hours', attempts = 5 WHERE event_id = $1`, [parked.id]);

  const deleted = await pruneOutbox(pool, new Date(Date.now() - 168 * HOUR), 2);
  assert.equal(deleted, 5);
  assert.deepEqual(new Set(await remaining()), new Set([...recent, waiting.id, parked.id]));
});

test('the pruner runs on its own at its interval, and OUTBOX_RETENTION_HOURS=0 keeps everything', async () => {
  const old = await published(3);
  await age(old, 1000);
  const keeper = new OutboxPruner({ pool, logger, retentionHours: 0, now: () => new Date(), intervalMs: 20 });
  keeper.start();
  await new Promise((r) => setTimeout(r, 200));
  await keeper.stop();
  assert.deepEqual(await remaining(), old);

  // A clock 40 days ahead: rows published a moment ago are past a week's retention too.
  await published(2);
  const pruner = new OutboxPruner({ pool, logger, retentionHours: 168, now: () => new Date(Date.now() + 40 * 24 * HOUR), intervalMs: 20 });
  pruner.start();
  await eventually('the pruner to empty the outbox', async () => ((await remaining()).length === 0 ? true : undefined), 5_000);
  await pruner.stop();
});
