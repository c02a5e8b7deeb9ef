import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Transport } from '@connectrpc/connect';
import { withDeadline, withDefaultDeadline } from './deadline.js';

const never = () => new Promise<never>(() => {});

test('withDeadline: aborts the signal and stops waiting for a call that ignores it', async () => {
  let seen: AbortSignal | undefined;
  const started = Date.now();
  await assert.rejects(withDeadline(30, (signal) => { seen = signal; return never(); }), /no answer within 30 ms/);
  assert.ok(Date.now() - started < 1000);
  assert.equal(seen!.aborted, true);
  assert.equal(await withDeadline(1000, async () => 7), 7);
});

test('withDefaultDeadline: a unary call without a deadline gets the budget, one with its own keeps it', async () => {
  const seen: Array<number | undefined> = [];
  const inner = {
    unary: async (_m: unknown, _s: unknown, timeoutMs: number | undefined) => { seen.push(timeoutMs); return {}; },
    stream: async (_m: unknown, _s: unknown, timeoutMs: number | undefined) => { seen.push(timeoutMs); return {}; },
  } as unknown as Transport;
  const bounded = withDefaultDeadline(inner, 5_000);
  const call = (t: Transport['unary'], timeoutMs: number | undefined) => (t as (...a: unknown[]) => Promise<unknown>)(
    {}, undefined, timeoutMs, undefined, {}, undefined);
  await call(bounded.unary, undefined);
  await call(bounded.unary, 300);
  await call(bounded.stream as never, undefined);
  assert.deepEqual(seen, [5_000, 300, undefined], 'streams (event streams) stay open as long as their caller wants');
});
