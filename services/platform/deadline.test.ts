import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withDeadline } from './deadline.js';

const never = () => new Promise<never>(() => {});

test('withDeadline: aborts the signal and stops waiting for a call that ignores it', async () => {
  let seen: AbortSignal | undefined;
  const started = Date.now();
  await assert.rejects(withDeadline(30, (signal) => { seen = signal; return never(); }), /no answer within 30 ms/);
  assert.ok(Date.now() - started < 1000);
  assert.equal(seen!.aborted, true);
  assert.equal(await withDeadline(1000, async () => 7), 7);
});
