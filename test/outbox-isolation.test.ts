import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { OutboxService } from '../proto/gen/svc/outbox/v1/outbox_pb.js';
import { JetStreamBus, type EventBus } from '../services/platform/bus/index.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { newId } from '../services/platform/ids.js';
import { admittedCallers, newInternalToken } from '../services/platform/internal-callers.js';
import { createLogger } from '../services/platform/logger.js';
import { migrate } from '../services/platform/migrate.js';
import { outboxRoutes } from '../services/platform/outbox-service.js';
import { OutboxRelay, enqueueEvent } from '../services/platform/outbox.js';
import { HealthState, closeRpcServer, createPeerTransport, createRpcServer } from '../services/platform/rpc.js';
import { listen } from '../services/platform/standalone.js';
import { type EventEnvelope } from '../services/contract/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { eventually } from './helpers/eventually.js';
import { natsServerMissing, startNatsServer, type NatsServer } from './helpers/nats-server.js';

// Needs a nats-server binary of its own (CI has one; a laptop may not: skipped there with the reason).
const skip = natsServerMissing();

// The relay on a real JetStream whose max_payload is small (8 KiB), so one event cannot be
// published: it is parked, everything else keeps flowing, one aggregate's events keep their order.

const MAX_PAYLOAD = 8192;
const PREFIX = 'iso';
const logger = createLogger('test', 'silent');

let nats: NatsServer;
let db: TestDatabase;
let pool: Pool;
let bus: JetStreamBus;
const received: EventEnvelope[] = [];
let stopConsumer: () => Promise<void>;

before(async () => {
  if (skip) return;
  nats = await startNatsServer({ maxPayload: MAX_PAYLOAD });
  db = await createTestDatabase();
  pool = createPool(db.url, 'payments', 6);
  await migrate(pool, 'payments', 'services/payments');
  bus = await JetStreamBus.connect({ url: nats.url, stream: 'ISO', subjectPrefix: PREFIX, logger, name: 'test' });
  const sub = await bus.consume('iso_test', [`${PREFIX}.>`], async (e) => {
    received.push(e);
  });
  stopConsumer = () => sub.stop();
});
after(async () => {
  await stopConsumer?.();
  await bus?.close();
  await pool?.end();
  await db?.drop();
  await nats?.close();
});

function event(type: string, object: Record<string, unknown>): EventEnvelope {
  return {
    id: newId('evt'), type, mode: 'test', merchant_id: 'mer_1', project_id: 'prj_1',
    // One instant for all: the outbox's own order (insertion), not the clock, keeps them in order.
    created_at: '2026-01-01T00:00:00.000Z', data: { object },
  };
}

const paymentEvent = (type: string, paymentId: string, extra: Record<string, unknown> = {}) =>
  event(type, { id: paymentId, object: 'payment', ...extra });

async function enqueueAll(events: EventEnvelope[]): Promise<void> {
  for (const e of events) await enqueueEvent(pool, e);
}

async function row(eventId: string) {
  const { rows } = await pool.query(
    'SELECT aggregate_id, attempts, last_error, next_attempt_at, parked_at, published_at FROM outbox WHERE event_id = $1',
    [eventId],
  );
  return rows[0];
}

const receivedIds = () => received.map((e) => e.id);

/** The outbox service on a loopback gRPC port, as a part serves it. */
async function outboxClient(relay: OutboxRelay): Promise<{ client: Client<typeof OutboxService>; close: () => Promise<void> }> {
  const token = newInternalToken();
  const server = createRpcServer(
    outboxRoutes(pool, relay), new HealthState([OutboxService.typeName]), createLogger('test', 'silent'), admittedCallers(token, []),
  );
  const port = await listen(server, 0, '127.0.0.1');
  const client = createClient(OutboxService, createPeerTransport(`http://127.0.0.1:${port}`, token));
  return { client, close: () => closeRpcServer(server, 1000) };
}

test('an event above max_payload is parked at once; other aggregates flow; its own later events wait behind it', { skip }, async () => {
  const a = newId('pay');
  const b = newId('pay');
  const aCreated = paymentEvent('payment.created', a);
  const aHuge = paymentEvent('payment.successful', a, { description: 'x'.repeat(MAX_PAYLOAD + 100) });
  const aRefunded = paymentEvent('payment.refunded', a);
  // A refund's events belong to its payment: it must not overtake the parked payment event.
  const aRefund = event('refund.successful', { id: newId('rf'), object: 'refund', payment_id: a });
  const bEvents = ['payment.created', 'payment.processing', 'payment.successful'].map((t) => paymentEvent(t, b));
  await enqueueAll([aCreated, aHuge, aRefunded, aRefund, ...bEvents]);
  assert.equal((await row(aRefund.id)).aggregate_id, a, 'a refund event is filed under its payment');

  const relay = new OutboxRelay({ pool, bus, logger, subjectPrefix: PREFIX, pollMs: 20, maxAttempts: 3, retryBaseMs: 10 });
  await relay.drain();

  const huge = await row(aHuge.id);
  assert.ok(huge.parked_at, 'parked without waiting for retries: it can never fit');
  assert.equal(huge.published_at, null);
  assert.equal(huge.attempts, 1);
  assert.match(huge.last_error, /max_payload of 8192 bytes/);
  for (const held of [aRefunded, aRefund]) {
    const r = await row(held.id);
    assert.equal(r.published_at, null, `${held.type} waits behind the parked event`);
    assert.equal(r.parked_at, null, `${held.type} is not parked itself`);
  }
  for (const e of [aCreated, ...bEvents]) assert.ok((await row(e.id)).published_at, `${e.type} of ${e.data.object.id} published`);

  await eventually('the published events at the consumer', async () => (received.length >= 4 ? true : undefined), 10_000);
  assert.deepEqual(receivedIds().filter((id) => bEvents.some((e) => e.id === id)), bEvents.map((e) => e.id), 'in order');
  assert.ok(receivedIds().includes(aCreated.id));
  assert.ok(![aHuge, aRefunded, aRefund].some((e) => receivedIds().includes(e.id)));

  // A later round does not claim the held events again, nor publish them.
  await relay.drain();
  assert.equal((await row(aRefunded.id)).published_at, null);

  const { client, close } = await outboxClient(relay);
  try {
    const list = await client.listDeadLetters({ limit: 50 });
    const letter = list.deadLetters.find((d) => d.eventId === aHuge.id);
    assert.ok(letter, 'listed');
    assert.equal(letter.type, 'payment.successful');
    assert.equal(letter.aggregateId, a);
    assert.equal(letter.heldBack, 2);
    assert.ok(letter.payloadBytes > MAX_PAYLOAD, 'its size is shown');
    const text = JSON.stringify(list, (_key, value) => (typeof value === 'bigint' ? String(value) : value));
    assert.ok(!text.includes('xxxxxxxxxx'), 'never its payload');
    // Still too large: re-publishing parks it again with the reason.
    const again = await client.republishDeadLetter({ eventId: aHuge.id });
    assert.equal(again.status, 'parked');
    assert.match(again.deadLetter!.lastError, /max_payload/);
  } finally {
    await close();
  }
});

test('an event the bus keeps refusing is retried with backoff, parked, and re-published in its order', { skip }, async () => {
  const c = newId('pay');
  const cCreated = paymentEvent('payment.created', c);
  const cSuccessful = paymentEvent('payment.successful', c);
  let refuse = true;
  const picky: EventBus = {
    async publish(m) {
      if (refuse && m.msgId === cCreated.id) throw new Error('simulated refusal of this one message');
      await bus.publish(m);
    },
    consume: (...args) => bus.consume(...args),
    close: async () => undefined,
  };
  const relay = new OutboxRelay({ pool, bus: picky, logger, subjectPrefix: PREFIX, pollMs: 20, maxAttempts: 3, retryBaseMs: 10 });
  await enqueueAll([cCreated, cSuccessful]);
  const others: EventEnvelope[] = [];
  for (let round = 0; round < 40 && !(await row(cCreated.id)).parked_at; round++) {
    // Another aggregate's event in every round: the bus works, so the refusals count against the event.
    const other = paymentEvent('payment.created', newId('pay'));
    others.push(other);
    await enqueueEvent(pool, other);
    await relay.drain();
    if (round === 0) {
      const first = await row(cCreated.id);
      assert.equal(first.attempts, 1);
      assert.ok(first.next_attempt_at && first.parked_at === null, 'retried later, not parked yet');
    }
    await new Promise((r) => setTimeout(r, 30));
  }
  const parked = await row(cCreated.id);
  assert.ok(parked.parked_at, 'parked after its attempts');
  assert.equal(parked.attempts, 3);
  assert.match(parked.last_error, /simulated refusal/);
  assert.equal((await row(cSuccessful.id)).published_at, null, 'its successor waits');
  for (const o of others) assert.ok((await row(o.id)).published_at, 'every other aggregate flowed meanwhile');

  refuse = false;
  const { client, close } = await outboxClient(relay);
  try {
    const res = await client.republishDeadLetter({ eventId: cCreated.id });
    assert.equal(res.status, 'published');
    await relay.drain();
    assert.ok((await row(cSuccessful.id)).published_at, 'the successor follows');
    await eventually('both at the consumer', async () =>
      (receivedIds().includes(cSuccessful.id) ? true : undefined), 10_000);
    const order = receivedIds().filter((id) => id === cCreated.id || id === cSuccessful.id);
    assert.deepEqual(order, [cCreated.id, cSuccessful.id], 'the aggregate kept its order');

    await assert.rejects(client.republishDeadLetter({ eventId: 'evt_unknown' }), (err: ConnectError) => err.code === Code.NotFound);
    await assert.rejects(client.republishDeadLetter({ eventId: cCreated.id }), (err: ConnectError) =>
      err.code === Code.FailedPrecondition && /not parked \(it is published\)/.test(err.rawMessage));
  } finally {
    await close();
  }
});

test('when the bus takes nothing at all, no event is blamed or parked', { skip }, async () => {
  const down: EventBus = {
    publish: async () => {
      throw new Error('CONNECTION_CLOSED');
    },
    consume: (...args) => bus.consume(...args),
    close: async () => undefined,
  };
  const events = [paymentEvent('payment.created', newId('pay')), paymentEvent('payment.created', newId('pay'))];
  await enqueueAll(events);
  const relay = new OutboxRelay({ pool, bus: down, logger, subjectPrefix: PREFIX, pollMs: 20, maxAttempts: 1 });
  await relay.drain();
  await relay.drain();
  for (const e of events) {
    const r = await row(e.id);
    assert.equal(r.attempts, 0);
    assert.equal(r.parked_at, null);
    assert.equal(r.published_at, null);
  }
  await new OutboxRelay({ pool, bus, logger, subjectPrefix: PREFIX, pollMs: 20 }).drain();
  for (const e of events) assert.ok((await row(e.id)).published_at);
});

test('three relays side by side keep every aggregate\'s events in order', { skip }, async () => {
  const aggregates = Array.from({ length: 25 }, () => newId('pay'));
  const types = ['payment.created', 'payment.processing', 'payment.successful', 'payment.refunded'];
  const expected = new Map(aggregates.map((p) => [p, types.map((t) => paymentEvent(t, p))]));
  // Interleaved as concurrent payments write them.
  for (let i = 0; i < types.length; i++) for (const p of aggregates) await enqueueEvent(pool, expected.get(p)![i]);
  const relays = [0, 1, 2].map(() => new OutboxRelay({ pool, bus, logger, subjectPrefix: PREFIX, pollMs: 20, batchSize: 7 }));
  const ids = new Set([...expected.values()].flat().map((e) => e.id));
  const left = async () => (await pool.query('SELECT count(*)::int AS n FROM outbox WHERE event_id = ANY($1) AND published_at IS NULL', [[...ids]])).rows[0].n;
  for (let i = 0; i < 50 && (await left()) > 0; i++) await Promise.all(relays.map((r) => r.drain()));
  assert.equal(await left(), 0);
  await eventually('every event at the consumer', async () =>
    (receivedIds().filter((id) => ids.has(id)).length === ids.size ? true : undefined), 10_000);
  for (const [p, events] of expected) {
    const got = received.filter((e) => e.data.object.id === p && ids.has(e.id)).map((e) => e.id);
    assert.deepEqual(got, events.map((e) => e.id), `order of ${p}`);
  }
});

test('re-publishing since a time returns published events to the relay, in their order', { skip }, async () => {
  const p = newId('pay');
  const events = ['payment.created', 'payment.successful'].map((t) => paymentEvent(t, p));
  await enqueueAll(events);
  const relay = new OutboxRelay({ pool, bus, logger, subjectPrefix: PREFIX, pollMs: 20 });
  const since = new Date(Date.now() - 1000);
  await relay.drain();
  const published: string[] = [];
  const counting: EventBus = {
    async publish(m) {
      published.push(m.msgId);
      await bus.publish(m);
    },
    consume: (...args) => bus.consume(...args),
    close: async () => undefined,
  };
  const { client, close } = await outboxClient(new OutboxRelay({ pool, bus: counting, logger, subjectPrefix: PREFIX, pollMs: 20 }));
  try {
    const res = await client.republishSince({ since: timestampFromDate(since) });
    assert.ok(res.events >= 2n);
    await new OutboxRelay({ pool, bus: counting, logger, subjectPrefix: PREFIX, pollMs: 20 }).drain();
    assert.deepEqual(published.filter((id) => events.some((e) => e.id === id)), events.map((e) => e.id));
    for (const e of events) assert.ok((await row(e.id)).published_at);
    await assert.rejects(client.republishSince({ since: timestampFromDate(new Date(Date.now() + 60_000)) }),
      (err: ConnectError) => err.code === Code.InvalidArgument);
  } finally {
    await close();
  }
});
