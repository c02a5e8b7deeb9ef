// Several dispatchers on one database share the deliveries without ever making the same attempt
// twice at once (FOR UPDATE SKIP LOCKED claims with a lease), retries included.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPool, type Pool } from '../services/platform/db.js';
import { createLogger } from '../services/platform/logger.js';
import { migrate } from '../services/platform/migrate.js';
import { createDeliveryStore } from '../services/webhooks/deliveries.js';
import { createDispatcher, type Dispatcher } from '../services/webhooks/dispatcher.js';
import { createEndpointStore } from '../services/webhooks/endpoints.js';
import { storeEvent } from '../services/webhooks/fan-out.js';
import { createSecretBox } from '../services/platform/secret-box.js';
import { createSender, type Sender } from '../services/webhooks/sender.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { MovableClock, event, eventually, newScope, startReceiver, type Receiver } from './webhooks-support.js';

const EVENTS = 150;
const ENDPOINTS = 3;

let db: TestDatabase;
const pools: Pool[] = [];
let receiver: Receiver;
const clock = new MovableClock();
const logger = createLogger('test', 'silent');
const box = createSecretBox(undefined, { variable: 'WEBHOOK_SECRET_KEY', allowPlain: true });
const policy = { allowLoopbackInTest: true };

before(async () => {
  db = await createTestDatabase();
  const pool = createPool(db.url, 'webhooks', 4);
  pools.push(pool);
  await migrate(pool, 'webhooks', 'services/webhooks');
});
after(async () => {
  await receiver?.close();
  await Promise.all(pools.map((p) => p.end()));
  await db?.drop();
});

/** A dispatcher of its own (own pool, own sender), as in another process; counts what it sent. */
function dispatcher(sent: string[]): { d: Dispatcher; sender: Sender } {
  const pool = createPool(db.url, 'webhooks', 4);
  pools.push(pool);
  const real = createSender({ timeoutMs: 5000, policy });
  const sender: Sender = {
    send: (req) => {
      sent.push(req.headers.find(([n]) => n === 'svc-delivery-id')![1]);
      return real.send(req);
    },
    close: () => real.close(),
  };
  const d = createDispatcher({
    store: createDeliveryStore(pool), sender, box, clock, logger,
    timeoutMs: 5000, maxAttempts: 6, concurrency: 24, perEndpoint: 8, pollMs: 20,
  });
  return { d, sender };
}

test('two dispatchers on one database never send a delivery twice at once, and each succeeds once', async () => {
  // Every delivery fails its first attempt, so the retries are contended for as well.
  const firstSeen = new Set<string>();
  receiver = await startReceiver((r) => {
    const key = String(r.headers['svc-delivery-id']);
    if (!firstSeen.has(key)) {
      firstSeen.add(key);
      return { status: 500, delayMs: 5 };
    }
    return { status: 200, delayMs: 10 };
  });
  const pool = pools[0];
  const endpoints = createEndpointStore(pool, box, policy);
  const scope = newScope();
  for (let i = 0; i < ENDPOINTS; i++) await endpoints.create(scope, { url: `${receiver.url}/${i}`, events: ['*'] }, clock.now());
  for (let i = 0; i < EVENTS; i++) await storeEvent(pool, event(scope, 'payment.created', { n: i }), clock.now());
  const total = EVENTS * ENDPOINTS;

  const sentA: string[] = [];
  const sentB: string[] = [];
  const a = dispatcher(sentA);
  const b = dispatcher(sentB);
  a.d.start();
  b.d.start();
  try {
    await receiver.waitFor(total, 60_000);
    await eventually(async () => {
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM deliveries WHERE status = 'failed'`);
      return rows[0].n === total ? true : undefined;
    }, 30_000, 'every first attempt recorded');
    clock.advance(30_000);
    a.d.kick();
    b.d.kick();
    await receiver.waitFor(2 * total, 60_000);
    await eventually(async () => {
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM deliveries WHERE status = 'succeeded'`);
      return rows[0].n === total ? true : undefined;
    }, 30_000, 'every delivery succeeded');
  } finally {
    await a.d.stop();
    await b.d.stop();
    a.sender.close();
    b.sender.close();
  }

  assert.equal(receiver.maxConcurrentPerDelivery(), 1, 'never two requests of one delivery at once');
  assert.ok(sentA.length > 0 && sentB.length > 0, `both dispatchers worked (${sentA.length} / ${sentB.length})`);
  assert.equal(sentA.length + sentB.length, 2 * total);
  // Each (delivery, attempt) arrived exactly once, and each delivery got exactly one 2xx.
  const seen = new Set(receiver.received.map((r) => `${r.headers['svc-delivery-id']}#${r.headers['svc-delivery-attempt']}`));
  assert.equal(seen.size, 2 * total);
  const { rows } = await pool.query(
    `SELECT d.id, d.attempt_count, count(a.*)::int AS attempts, count(a.*) FILTER (WHERE a.response_status = 200)::int AS ok
     FROM deliveries d JOIN delivery_attempts a ON a.delivery_id = d.id GROUP BY d.id`,
  );
  assert.equal(rows.length, total);
  for (const row of rows) {
    assert.equal(row.attempt_count, 2);
    assert.equal(row.attempts, 2);
    assert.equal(row.ok, 1);
  }
});

test('claims waiting for an endpoint slot when the dispatcher stops are handed back as they were', async () => {
  // Each answer takes a while, so the claims past the endpoint's cap are still waiting at stop.
  const slow = await startReceiver({ status: 200, delayMs: 500 });
  const pool = pools[0];
  const scope = newScope();
  await createEndpointStore(pool, box, policy).create(scope, { url: slow.url, events: ['*'] }, clock.now());
  for (let i = 0; i < 6; i++) await storeEvent(pool, event(scope, 'payment.created', { n: i }), clock.now());
  const sender = createSender({ timeoutMs: 5000, policy });
  const d = createDispatcher({
    store: createDeliveryStore(pool), sender, box, clock, logger,
    timeoutMs: 5000, maxAttempts: 6, concurrency: 24, perEndpoint: 2, pollMs: 20,
  });
  try {
    d.start();
    await slow.waitFor(2, 10_000);
    await d.stop();
  } finally {
    sender.close();
    await slow.close();
  }
  assert.equal(slow.received.length, 2, 'never more than the cap of requests open');
  const { rows } = await pool.query(
    'SELECT status, attempt_count FROM deliveries WHERE project_id = $1 ORDER BY id', [scope.projectId],
  );
  // Two sent and recorded; two claimed ahead and handed back; two never claimed: all four as stored.
  assert.deepEqual(rows.map((r) => `${r.status}/${r.attempt_count}`).sort(),
    ['pending/0', 'pending/0', 'pending/0', 'pending/0', 'succeeded/1', 'succeeded/1']);
  const handedBack = await pool.query(
    `SELECT count(*)::int AS n FROM deliveries WHERE project_id = $1 AND status = 'pending' AND next_attempt_at <= $2`,
    [scope.projectId, clock.now()],
  );
  assert.equal(handedBack.rows[0].n, 4, 'due at once');
});
