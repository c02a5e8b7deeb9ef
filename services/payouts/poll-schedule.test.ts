import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_POLL_INTERVAL_MS, pollDelayMs } from './poll-schedule.js';

test('the wait doubles from the first, is capped at an hour, and jitter only shortens it by up to a fifth', () => {
  const none = () => 0;
  assert.deepEqual([1, 2, 3, 4].map((n) => pollDelayMs(30_000, n, none)), [30_000, 60_000, 120_000, 240_000]);
  assert.equal(pollDelayMs(30_000, 8, none), MAX_POLL_INTERVAL_MS);
  assert.equal(pollDelayMs(30_000, 5000, none), MAX_POLL_INTERVAL_MS, 'no overflow after many polls');
  assert.equal(pollDelayMs(30_000, 1, () => 0.999_999), 24_000);
  assert.equal(pollDelayMs(30_000, 8, () => 0.5), 0.9 * MAX_POLL_INTERVAL_MS);
});
