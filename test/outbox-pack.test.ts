import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { connect, nanos, StorageType, type JetStreamManager, type NatsConnection } from 'nats';
import { JetStreamBus, type BusMessage, type EventBus } from '../services/platform/bus/index.js';
import { createPool, withTransaction, type Pool } from '../services/platform/db.js';
import { newId } from '../services/platform/ids.js';
import { createLogger } from '../services/platform/logger.js';
import { migrate } from '../services/platform/migrate.js';
import { OutboxRelay, outboxRow } from '../services/platform/outbox.js';
import { writeRows } from '../services/platform/row-writes.js';
import { deleteStream } from './helpers/bus.js';
import { createTestDatabase, requireInCi, type TestDatabase } from './helpers/database.js';

// The relay sends the events of one aggregate that it claims together as one message (OUTBOX_PACK),
// on real Postgres and real JetStream: each consumer receives and acknowledges it once and is
// handed the events it subscribes to in their order; the guarantees of one message per event hold
// (nothing acknowledged is lost, a republish is deduplicated, the order of an aggregate is kept);
// and an event written with a hold waits, by the database's clock, for a later one to go with.

requireInCi('NATS_URL');
const url = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const suffix = randomBytes(5).toString('hex');
const stream = `SVC_PACK_${suffix}`;
const prefix = `svcpack.${suffix}`;
const MAX_MSG_SIZE = 4096;
const logger = createLogger('test', 'silent');

let db: TestDatabase;
let pool: Pool;
let nc: NatsConnection;
let jsm: JetStreamManager;
let bus: JetStreamBus;

before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 'payments', 4);
  await migrate(pool, 'payments', 'services/payments');
  nc = await connect({ servers: url });
  jsm = await nc.jetstreamManager();
  // A message size limit of the stream's own, so that a pack can be too large while its events are not.
  await jsm.streams.add({
    name: stream, subjects: [`${prefix}.>`], storage: StorageType.File, max_msg_size: MAX_MSG_SIZE, duplicate_window: nanos(120_000),
  });
  bus = await JetStreamBus.connect({ url, stream, subjectPrefix: prefix, logger, name: 'test' });
});
after(async () => {
  await bus?.close();
  await nc?.close();
  await deleteStream(url, stream);
  await pool?.end();
  await db?.drop();
});

/** A synchronous payment's events, as payments commits them: created, then the outcome and its internal events. */
function paymentEvents(pad = 0) {
  const id = newId('pay');
  const envelope = (type: string, object: Record<string, unknown>) => ({
    id: newId('evt'), type, mode: 'test', merchant_id: 'mer_1', project_id: 'prj_1', created_at: new Date().toISOString(), data: { object },
  });
  return [
    envelope('payment.created', { id, object: 'payment', pad: 'x'.repeat(pad) }),
    envelope('payment.successful', { id, object: 'payment', pad: 'x'.repeat(pad) }),
    envelope('internal.payment.decided', { version: 1, payment_id: id, pad: 'x'.repeat(pad) }),
    envelope('internal.attempt.settled', { version: 1, payment_id: id, pad: 'x'.repeat(pad) }),
  ];
}
type Envelope = ReturnType<typeof paymentEvents>[number];

const relay = (extra: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {}) =>
  new OutboxRelay({ pool, bus, logger, subjectPrefix: prefix, pollMs: 20, pack: true, ...extra });

async function write(events: Envelope[], holdMs = 0): Promise<void> {
  await withTransaction(pool, (tx) => writeRows(tx, events.map((e) => outboxRow(e, holdMs))));
}

const stored = async () => (await jsm.streams.info(stream)).state.messages;

async function rows(events: Envelope[]) {
  const { rows: found } = await pool.query(
    'SELECT event_id, published_at IS NOT NULL AS published, attempts, stream_seq FROM outbox WHERE event_id = ANY($1) ORDER BY seq',
    [events.map((e) => e.id)],
  );
  return found as Array<{ event_id: string; published: boolean; attempts: number; stream_seq: string | null }>;
}

/** A durable consumer of its own, recording the ids it is handed (of `ids`) in order. */
async function consumer(filter: string, ids: Set<string>) {
  const durable = `pack_${randomBytes(4).toString('hex')}`;
  const got: string[] = [];
  const sub = await bus.consume(durable, [filter], async (e) => {
    if (ids.has(e.id)) got.push(e.id);
  }, { concurrency: 16 });
  return { durable, got, sub };
}

async function until(what: string, done: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('one aggregate\'s events claimed together are one message, received once by each consumer with the events it takes, in order', async () => {
  const events = paymentEvents();
  const ids = new Set(events.map((e) => e.id));
  const everything = await consumer(`${prefix}.>`, ids);
  const internal = await consumer(`${prefix}.internal.>`, ids);
  const before = await stored();
  await write(events);
  await relay().drain();

  assert.equal(await stored(), before + 1, 'one message in the stream for the four events');
  const marked = await rows(events);
  assert.ok(marked.every((r) => r.published), 'every row marked sent');
  assert.equal(new Set(marked.map((r) => r.stream_seq)).size, 1, 'all at the one message\'s place in the stream');

  await until('both consumers', () => everything.got.length === 4 && internal.got.length === 2);
  assert.deepEqual(everything.got, events.map((e) => e.id));
  assert.deepEqual(internal.got, events.slice(2).map((e) => e.id));
  for (const c of [everything, internal]) {
    await until(`${c.durable} to acknowledge`, async () => (await bus.pending(c.durable)) === 0);
    const info = await jsm.consumers.info(stream, c.durable);
    assert.equal(info.delivered.consumer_seq, 1, `${c.durable}: one delivery`);
    assert.equal(info.num_redelivered, 0);
  }

  // A relay that publishes the same rows again (its marks were lost) sends the same message id:
  // the broker drops the repeat, and no consumer sees the events twice.
  await pool.query('UPDATE outbox SET published_at = NULL WHERE event_id = ANY($1)', [[...ids]]);
  await relay().drain();
  assert.equal(await stored(), before + 1, 'the repeat was deduplicated');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(everything.got.length, 4);
  await everything.sub.stop();
  await internal.sub.stop();
});

test('a pack the bus refuses goes back as its rows: the first is blamed, the rest wait unblamed behind it, and all leave in order', async () => {
  const events = paymentEvents();
  const other = paymentEvents().slice(0, 1);
  let refuse = true;
  const refusing: EventBus = {
    async publish(m: BusMessage) {
      if (refuse && m.msgId.startsWith('pack:')) {
        refuse = false;
        throw new Error('stream unavailable for this subject');
      }
      return bus.publish(m);
    },
    consume: (...args) => bus.consume(...args),
    close: async () => undefined,
  };
  const before = await stored();
  // Another aggregate's event in the same batch gets through: the bus works, so the failure counts.
  await write([...events, ...other]);
  const r = relay({ bus: refusing, retryBaseMs: 100 });
  await r.drain();
  assert.deepEqual((await rows(events)).map((x) => [x.published, x.attempts]), [[false, 1], [false, 0], [false, 0], [false, 0]]);
  assert.equal((await rows(other))[0].published, true);
  assert.equal(await stored(), before + 1, 'only the other aggregate\'s event was stored');

  // Once its retry is due the blamed row leaves first; the rows behind a failed one wait for it to go.
  await new Promise((resolve) => setTimeout(resolve, 150));
  await r.drain();
  await r.drain();
  const marked = await rows(events);
  assert.ok(marked.every((x) => x.published));
  const seqs = marked.map((x) => Number(x.stream_seq));
  assert.ok(seqs[0] < seqs[1] && seqs[1] === seqs[3], `in order: ${seqs}`);
  assert.equal(await stored(), before + 3);
});

test('a pack larger than the stream takes leaves one event at a time, in order', async () => {
  // Each event fits the stream's limit; the four together do not.
  const events = paymentEvents(1200);
  const ids = new Set(events.map((e) => e.id));
  const everything = await consumer(`${prefix}.>`, ids);
  const before = await stored();
  await write(events);
  await relay().drain();
  assert.equal(await stored(), before + 4);
  const seqs = (await rows(events)).map((x) => Number(x.stream_seq));
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), 'stored in the aggregate\'s order');
  await until('the consumer', () => everything.got.length === 4);
  assert.deepEqual(everything.got, events.map((e) => e.id));
  await everything.sub.stop();
});

test('a held event waits for a later event of its aggregate, then both leave at once as one message', async () => {
  const [created, ...outcome] = paymentEvents();
  const before = await stored();
  await write([created], 30_000);
  const r = relay();
  await r.drain();
  assert.equal((await rows([created]))[0].published, false, 'held');
  assert.equal(await stored(), before);
  await write(outcome);
  await r.drain();
  const marked = await rows([created, ...outcome]);
  assert.ok(marked.every((x) => x.published), 'released by the later event, long before its hold ends');
  assert.equal(await stored(), before + 1);
});

test('a held event with nothing after it leaves alone when its hold ends, not before, woken without a poll', async () => {
  const [created] = paymentEvents();
  const HOLD_MS = 700;
  const received: number[] = [];
  const ids = new Set([created.id]);
  const durable = `pack_${randomBytes(4).toString('hex')}`;
  const sub = await bus.consume(durable, [`${prefix}.payment.created`], async (e) => {
    if (ids.has(e.id)) received.push(Date.now());
  });
  // Polls far apart: only the wake can publish it in time.
  const r = relay({ pollMs: 60_000 });
  r.start();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const written = Date.now();
  await write([created], HOLD_MS);
  r.kick();
  r.wakeAfter(HOLD_MS);
  await until('the held event', () => received.length === 1, 5_000);
  const after = received[0] - written;
  assert.ok(after >= HOLD_MS - 50 && after < HOLD_MS + 700, `published ${after} ms after it was written (hold ${HOLD_MS} ms)`);
  await r.stop();
  await sub.stop();
});

test('a consumer is never acknowledged a pack of a version it does not read: it is delivered again', async () => {
  const [created] = paymentEvents();
  let handled = 0;
  const durable = `pack_${randomBytes(4).toString('hex')}`;
  const sub = await bus.consume(durable, [`${prefix}.>`], async (e) => {
    if (e.id === created.id) handled++;
  });
  await bus.publish({
    subject: `${prefix}.internal.pack`, msgId: `pack:future:${created.id}`,
    data: Buffer.from(JSON.stringify({ pack: 2, events: [{ subject: `${prefix}.payment.created`, event: created }] })),
  });
  await until('a redelivery', async () => (await jsm.consumers.info(stream, durable)).num_redelivered >= 1, 5_000);
  assert.equal(handled, 0);
  assert.equal(await bus.pending(durable), 1, 'still unacknowledged');
  await sub.stop();
});
