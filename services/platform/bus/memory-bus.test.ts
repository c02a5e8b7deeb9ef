import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventEnvelope } from '../../contract/envelope.js';
import { MemoryBus } from './memory-bus.js';

const publish = (bus: MemoryBus, id: string) => bus.publish({
  subject: 'svc.events.payment.created', msgId: id,
  data: Buffer.from(JSON.stringify({ id, type: 'payment.created', data: { object: {} } })),
});

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

test('one at a time by default: every message in order', async () => {
  const bus = new MemoryBus();
  const seen: string[] = [];
  const sub = await bus.consume('one', ['svc.events.>'], async (e: EventEnvelope) => { seen.push(e.id); });
  for (const id of ['a', 'b', 'c', 'b']) await publish(bus, id);
  await until(() => seen.length === 3);
  await sub.stop();
  assert.deepEqual(seen, ['a', 'b', 'c']);
});

test('with concurrency, messages are handled side by side and a failing one does not hold back the rest', async () => {
  const bus = new MemoryBus();
  const handled: string[] = [];
  let inFlight = 0;
  let most = 0;
  let failures = 0;
  const sub = await bus.consume('many', ['svc.events.>'], async (e: EventEnvelope) => {
    most = Math.max(most, ++inFlight);
    await new Promise((r) => setTimeout(r, 5));
    inFlight--;
    if (e.id === 'a' && failures++ === 0) throw new Error('not ready');
    handled.push(e.id);
  }, { concurrency: 4 });
  for (const id of ['a', 'b', 'c', 'd', 'e']) await publish(bus, id);
  await until(() => handled.length === 4);
  assert.deepEqual(handled.sort(), ['b', 'c', 'd', 'e'], 'the rest before the failed one is redelivered');
  assert.ok(most > 1 && most <= 4, `${most} at once`);
  await until(() => handled.length === 5);
  await sub.stop();
  assert.ok(handled.includes('a'), 'the failed message is delivered again');
});

test('pending counts matching messages not yet taken plus the one in hand, 0 once handled or unknown', async () => {
  const bus = new MemoryBus();
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const seen: string[] = [];
  const sub = await bus.consume('slow', ['svc.events.>'], async (e: EventEnvelope) => { await gate; seen.push(e.id); });
  for (const id of ['a', 'b', 'c']) await publish(bus, id);
  await bus.publish({ subject: 'other.subject', msgId: 'x', data: Buffer.from('{"id":"x"}') });
  assert.equal(await bus.pending('slow'), 3);
  release();
  await until(() => seen.length === 3);
  assert.equal(await bus.pending('slow'), 0);
  assert.equal(await bus.pending('nobody'), 0);
  await sub.stop();
});
