import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { connect, nanos, StorageType, type NatsConnection } from 'nats';
import { JetStreamBus, UnpublishableMessage, type BusMessage } from '../services/platform/bus/index.js';
import { createLogger } from '../services/platform/logger.js';
import { requireInCi } from './helpers/database.js';
import { deleteStream } from './helpers/bus.js';

// The relay sends a payment's events in one round (JetStreamBus.publishInOrder) instead of
// awaiting each acknowledgement before the next. On real JetStream: the stream keeps them in their
// order, and a message the stream would refuse for its size stops the round before anything after
// it is sent, so no later event of its aggregate overtakes it.

requireInCi('NATS_URL');
const url = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const suffix = randomBytes(5).toString('hex');
const stream = `SVC_ORDER_${suffix}`;
const prefix = `svcorder.${suffix}`;
const MAX_MSG_SIZE = 2048;

let nc: NatsConnection;
let bus: JetStreamBus;

before(async () => {
  nc = await connect({ servers: url });
  // A stream with a message size limit of its own, below the server's max_payload.
  await (await nc.jetstreamManager()).streams.add({
    name: stream, subjects: [`${prefix}.>`], storage: StorageType.File, max_msg_size: MAX_MSG_SIZE,
    duplicate_window: nanos(120_000),
  });
  bus = await JetStreamBus.connect({ url, stream, subjectPrefix: prefix, logger: createLogger('test', 'silent'), name: 'test' });
});
after(async () => {
  await bus?.close();
  await nc?.close();
  await deleteStream(url, stream);
});

const message = (n: number, bytes = 100): BusMessage => ({
  subject: `${prefix}.payment.step`, msgId: `evt_${suffix}_${n}`,
  data: Buffer.from(JSON.stringify({ n, pad: 'x'.repeat(bytes) })),
});

/** What the stream holds, in its order. */
async function stored(): Promise<number[]> {
  const jsm = await nc.jetstreamManager();
  const info = await jsm.streams.info(stream);
  const out: number[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(stream, { seq });
    out.push(JSON.parse(Buffer.from(m.data).toString('utf8')).n);
  }
  return out;
}

test('a round of one aggregate\'s messages is stored in its order, each acknowledged', async () => {
  const messages = Array.from({ length: 40 }, (_, i) => message(i));
  const outcomes = await bus.publishInOrder(messages);
  // Each acknowledged with where the stream stored it (the outbox keeps it: outbox-resend.ts).
  assert.deepEqual(outcomes.map((o) => o.ok && o.receipt?.seq), messages.map((_, i) => i + 1));
  assert.deepEqual(await stored(), messages.map((_, i) => i));
});

test('a message above the stream\'s max_msg_size is refused before the round sends anything after it', async () => {
  const before = (await stored()).length;
  const outcomes = await bus.publishInOrder([message(100), message(101, MAX_MSG_SIZE + 10), message(102), message(103)]);
  assert.equal(outcomes[0].ok, true);
  assert.ok(!outcomes[1].ok && 'err' in outcomes[1] && outcomes[1].err instanceof UnpublishableMessage, JSON.stringify(outcomes[1]));
  assert.match(String((outcomes[1] as { err: Error }).err.message), /max_msg_size/);
  assert.deepEqual(outcomes.slice(2), [{ ok: false, notSent: true }, { ok: false, notSent: true }]);
  assert.deepEqual((await stored()).slice(before), [100], 'nothing after the refused message reached the stream');
});
