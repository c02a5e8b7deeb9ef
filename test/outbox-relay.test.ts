import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BusMessage, EventBus } from '../services/platform/bus/index.js';
import { createPool, withTransaction, type Pool } from '../services/platform/db.js';
import { newId } from '../services/platform/ids.js';
import { createLogger } from '../services/platform/logger.js';
import { migrate } from '../services/platform/migrate.js';
import { OutboxRelay, enqueueEvent } from '../services/platform/outbox.js';
import { createTestBus, type TestBus } from './helpers/bus.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

let db: TestDatabase;
let pool: Pool;
let testBus: TestBus;
const logger = createLogger('test', 'silent');

before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 'payments', 4);
  await migrate(pool, 'payments', 'services/payments');
  testBus = await createTestBus();
});
after(async () => {
  await pool?.end();
  await testBus?.close();
  await db?.drop();
});

function event(type: string) {
  return {
    id: newId('evt'), type, mode: 'test', merchant_id: 'mer_1', project_id: 'prj_1',
    created_at: new Date().toISOString(), data: { object: { id: newId('pay') } },
  };
}

async function unpublished(): Promise<number> {
  return (await pool.query('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL')).rows[0].n;
}

const prefix = () => testBus.nats?.subjectPrefix ?? 'svc.events';

test('a rolled-back transaction leaves no event behind', async () => {
  await assert.rejects(
    withTransaction(pool, async (tx) => {
      await enqueueEvent(tx, event('payment.created'));
      throw new Error('state change failed');
    }),
  );
  assert.equal(await unpublished(), 0);
});

test('rows stay in the outbox while the bus refuses them, and are published once it accepts', async () => {
  let accept = false;
  const published: BusMessage[] = [];
  const flaky: EventBus = {
    async publish(m) {
      if (!accept) throw new Error('broker unavailable');
      published.push(m);
      await testBus.bus.publish(m);
    },
    consume: (...args) => testBus.bus.consume(...args),
    close: async () => undefined,
  };
  const relay = new OutboxRelay({ pool, bus: flaky, logger, subjectPrefix: prefix(), pollMs: 20 });
  const events = [event('payment.created'), event('payment.successful')];
  await withTransaction(pool, async (tx) => {
    for (const e of events) await enqueueEvent(tx, e);
  });
  await relay.drain();
  assert.equal(await unpublished(), 2, 'nothing is marked sent without an ack');
  accept = true;
  await relay.drain();
  assert.equal(await unpublished(), 0);
  assert.deepEqual(published.map((m) => m.msgId).sort(), events.map((e) => e.id).sort());
  assert.deepEqual(published.map((m) => m.subject).sort(), [`${prefix()}.payment.created`, `${prefix()}.payment.successful`]);
});

test('two relays draining at once publish each event to consumers exactly once', async () => {
  const ids = new Set<string>();
  for (let i = 0; i < 50; i++) {
    const e = event('payment.created');
    ids.add(e.id);
    await enqueueEvent(pool, e);
  }
  const received: string[] = [];
  const sub = await testBus.bus.consume(`relay_test_${Date.now()}`, [`${prefix()}.>`], async (e) => {
    if (ids.has(e.id)) received.push(e.id);
  });
  const relays = [0, 1].map(() => new OutboxRelay({ pool, bus: testBus.bus, logger, subjectPrefix: prefix(), pollMs: 20, batchSize: 7 }));
  await Promise.all(relays.map((r) => r.drain()));
  const deadline = Date.now() + 10_000;
  while (received.length < ids.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 200));
  await sub.stop();
  assert.equal(await unpublished(), 0);
  assert.equal(received.length, ids.size);
  assert.equal(new Set(received).size, ids.size, 'no event delivered twice');
});

test('publishing the same event id again is dropped by the bus (deduplication window)', async () => {
  const e = event('payment.created');
  const received: string[] = [];
  const sub = await testBus.bus.consume(`dedup_test_${Date.now()}`, [`${prefix()}.>`], async (got) => {
    if (got.id === e.id) received.push(got.id);
  });
  const message = { subject: `${prefix()}.payment.created`, msgId: e.id, data: Buffer.from(JSON.stringify(e)) };
  await testBus.bus.publish(message);
  await testBus.bus.publish(message);
  const deadline = Date.now() + 5000;
  while (received.length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 300));
  await sub.stop();
  assert.deepEqual(received, [e.id]);
});

test('a relay that dies mid-batch loses nothing: its leased rows are claimed again once the lease ends', async () => {
  const events = [event('payment.created'), event('payment.created')];
  for (const e of events) await enqueueEvent(pool, e);
  const ids = new Set(events.map((e) => e.id));
  // A relay whose publishes never return: it claimed the batch and then hung or died.
  const hung: EventBus = {
    publish: () => new Promise(() => undefined),
    consume: (...args) => testBus.bus.consume(...args),
    close: async () => undefined,
  };
  void new OutboxRelay({ pool, bus: hung, logger, subjectPrefix: prefix(), pollMs: 20, leaseMs: 500 }).drain();
  const published: string[] = [];
  const counting: EventBus = {
    async publish(m) {
      if (ids.has(m.msgId)) published.push(m.msgId);
      await testBus.bus.publish(m);
    },
    consume: (...args) => testBus.bus.consume(...args),
    close: async () => undefined,
  };
  const other = new OutboxRelay({ pool, bus: counting, logger, subjectPrefix: prefix(), pollMs: 20 });
  await new Promise((r) => setTimeout(r, 100));
  await other.drain();
  assert.deepEqual(published, [], 'leased rows are left to the relay holding them');
  await new Promise((r) => setTimeout(r, 500));
  await other.drain();
  assert.deepEqual(published.sort(), [...ids].sort());
  assert.equal(await unpublished(), 0);
});

test('an idle relay polls less and less often, up to 4 poll intervals apart, and still publishes what a kick announces', async () => {
  let claims = 0;
  // The pool as the relay sees it, counting its claim statements (one per round).
  const counted = new Proxy(pool, {
    get(target, key) {
      if (key !== 'query') return Reflect.get(target, key);
      return (...args: Parameters<Pool['query']>) => {
        const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
        if (/FROM outbox/i.test(text) && /lease|claim/i.test(text)) claims++;
        return (target.query as (...a: unknown[]) => unknown)(...args);
      };
    },
  }) as Pool;
  const received: string[] = [];
  const sub = await testBus.bus.consume(`idle-${Date.now()}`, [`${prefix()}.payment.>`], async (e) => { received.push(e.id); });
  const relay = new OutboxRelay({ pool: counted, bus: testBus.bus, logger, subjectPrefix: prefix(), pollMs: 50 });
  try {
    relay.start();
    await new Promise((r) => setTimeout(r, 1500));
    // At a steady 50 ms that would be ~30 rounds; backing off to 200 ms it is about 10.
    assert.ok(claims > 3 && claims <= 16, `idle rounds in 1.5 s: ${claims}`);
    const e = event('payment.created');
    await enqueueEvent(pool, e);
    relay.kick();
    for (let waited = 0; !received.includes(e.id) && waited < 5000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    assert.ok(received.includes(e.id), 'the kicked event was published');
  } finally {
    await relay.stop();
    await sub.stop();
  }
});
