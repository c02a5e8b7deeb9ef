import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBatcher } from './batcher.js';

test('calls made while a batch is written go together in the next one, each getting its own result', async () => {
  const batches: number[][] = [];
  const double = createBatcher(async (items: number[]) => {
    batches.push(items);
    await new Promise((r) => setTimeout(r, 10));
    return items.map((n) => n * 2);
  });
  const results = await Promise.all([1, 2, 3, 4].map((n) => double(n)));
  assert.deepEqual(results, [2, 4, 6, 8]);
  assert.deepEqual(batches, [[1], [2, 3, 4]]);
});

test('a failed batch fails its callers only', async () => {
  let calls = 0;
  const fragile = createBatcher(async (items: string[]) => {
    calls++;
    if (items.includes('bad')) throw new Error('boom');
    return items;
  });
  const first = fragile('ok');
  const [second, third] = [fragile('bad'), fragile('fine')];
  assert.equal(await first, 'ok');
  await assert.rejects(second, /boom/);
  await assert.rejects(third, /boom/);
  assert.equal(await fragile('later'), 'later');
  assert.equal(calls, 3);
});

/** A batcher that answers each item with itself and keeps the batches it was handed. */
function echoing(maxBatch: number, waitMs: number) {
  const batches: number[][] = [];
  const record = createBatcher(async (items: number[]) => {
    batches.push(items);
    return items;
  }, maxBatch, waitMs);
  return { batches, record };
}

test('with a wait, a lone call waits for company: the calls of the window go in one batch', async () => {
  const { batches, record } = echoing(500, 100);
  const first = record(1);
  await new Promise((r) => setTimeout(r, 30));
  const rest = [record(2), record(3)];
  assert.deepEqual(batches, [], 'nothing written inside the window');
  assert.deepEqual(await Promise.all([first, ...rest]), [1, 2, 3]);
  assert.deepEqual(batches, [[1, 2, 3]]);
});

test('with a wait, a full batch is written at once', async () => {
  const { batches, record } = echoing(3, 60_000);
  const started = Date.now();
  assert.deepEqual(await Promise.all([1, 2, 3].map((n) => record(n))), [1, 2, 3]);
  assert.ok(Date.now() - started < 30_000, 'not held for the window');
  assert.deepEqual(batches, [[1, 2, 3]]);
});

test('with a wait, now() writes the calls waiting for company at once', async () => {
  const { batches, record } = echoing(500, 60_000);
  const started = Date.now();
  const waiting = [record(1), record(2)];
  assert.deepEqual(batches, []);
  record.now();
  assert.deepEqual(await Promise.all(waiting), [1, 2]);
  assert.ok(Date.now() - started < 30_000, 'not held for the window');
  assert.deepEqual(batches, [[1, 2]]);
  record.now(); // nothing waiting: nothing written
  assert.deepEqual(batches, [[1, 2]]);
});
