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
