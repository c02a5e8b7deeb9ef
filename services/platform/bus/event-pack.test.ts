import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventEnvelope } from '../../contract/envelope.js';
import { MemoryBus } from './memory-bus.js';
import { PACK_VERSION, UnreadablePack, handleEach, packMessage, subjectMatches, unpack, type PackedEvent } from './event-pack.js';

const envelope = (id: string, type: string): EventEnvelope => ({
  id, type, mode: 'test', merchant_id: 'mer_1', project_id: 'prj_1', created_at: new Date(0).toISOString(), data: { object: { id: 'pay_1' } },
});
const packed = (id: string, type: string): PackedEvent & { msgId: string } => ({
  subject: `p.${type}`, msgId: id, event: envelope(id, type), traceparent: `00-${id}`,
});
const chain = [packed('evt_1', 'payment.created'), packed('evt_2', 'payment.successful'), packed('evt_3', 'internal.attempt.settled')];

test('a pack is one message on <prefix>.internal.pack, named by its first and last event, read back event by event', () => {
  const message = packMessage('p', chain);
  assert.equal(message.subject, 'p.internal.pack');
  assert.equal(message.msgId, 'pack:evt_1:evt_3');
  assert.equal(message.traceparent, '00-evt_1');
  assert.deepEqual(unpack(message.subject, message.data, message.traceparent), chain.map(({ msgId: _, ...e }) => e));
  // Every consumer's filter takes it: the public ones' and the internal ones'.
  assert.ok(subjectMatches('p.>', message.subject) && subjectMatches('p.internal.>', message.subject));
});

test('a plain message is its own one event; a pack of another version is refused, not read as nothing', () => {
  const one = envelope('evt_9', 'payment.created');
  assert.deepEqual(unpack('p.payment.created', Buffer.from(JSON.stringify(one)), undefined), [{ subject: 'p.payment.created', event: one, traceparent: undefined }]);
  const future = Buffer.from(JSON.stringify({ pack: PACK_VERSION + 1, events: [] }));
  assert.throws(() => unpack('p.internal.pack', future, undefined), UnreadablePack);
});

test('a consumer is handed the events its subjects take, one after another in order; a failure stops there', async () => {
  const events = chain.map(({ msgId: _, ...e }) => e);
  const seen: string[] = [];
  let running = 0;
  const handle = async (e: PackedEvent) => {
    assert.equal(++running, 1, 'one at a time');
    await new Promise((r) => setTimeout(r, 2));
    seen.push(e.event.id);
    running--;
  };
  await handleEach(events, ['p.internal.>'], handle);
  assert.deepEqual(seen, ['evt_3']);
  seen.length = 0;
  await handleEach(events, ['p.>'], handle);
  assert.deepEqual(seen, ['evt_1', 'evt_2', 'evt_3']);
  seen.length = 0;
  await assert.rejects(handleEach(events, ['p.>'], async (e) => {
    if (e.event.id === 'evt_2') throw new Error('database down');
    seen.push(e.event.id);
  }), /database down/);
  assert.deepEqual(seen, ['evt_1'], 'nothing after the failed event');
});

test('the in-process bus hands a pack to each consumer once, stores a repeated pack once, and redelivers the whole pack after a throw', async () => {
  const bus = new MemoryBus();
  const got = { all: [] as string[], internal: [] as string[] };
  let failOnce = true;
  const all = await bus.consume('all', ['p.>'], async (e) => {
    if (e.id === 'evt_2' && failOnce) {
      failOnce = false;
      throw new Error('try again');
    }
    got.all.push(e.id);
  });
  const internal = await bus.consume('internal', ['p.internal.>'], async (e) => {
    got.internal.push(e.id);
  });
  await bus.publish(packMessage('p', chain));
  await bus.publish(packMessage('p', chain));
  for (let i = 0; i < 300 && got.all.length < 4; i++) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(got.all, ['evt_1', 'evt_1', 'evt_2', 'evt_3'], 'after the throw the whole pack came again, once');
  assert.deepEqual(got.internal, ['evt_3']);
  assert.equal(await bus.pending('all'), 0);
  await all.stop();
  await internal.stop();
});
