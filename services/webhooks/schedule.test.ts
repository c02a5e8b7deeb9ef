import assert from 'node:assert/strict';
import { test } from 'node:test';
import { afterAttempt, afterFailure, delayBeforeAttempt, retryAfterTime } from './schedule.js';

test('the contract\'s schedule: +30 s, +2 min, +10 min, +30 min, then every 2 h', () => {
  const seconds = [2, 3, 4, 5, 6, 7, 12].map((n) => delayBeforeAttempt(n) / 1000);
  assert.deepEqual(seconds, [30, 120, 600, 1800, 7200, 7200, 7200]);
  assert.throws(() => delayBeforeAttempt(1), RangeError);
});

test('a failure schedules the next attempt from the failed one\'s start, until the limit', () => {
  const start = new Date('2030-01-01T00:00:00.000Z');
  assert.deepEqual(afterFailure(1, start, 6), { status: 'failed', nextAttemptAt: new Date('2030-01-01T00:00:30.000Z') });
  assert.deepEqual(afterFailure(5, start, 6), { status: 'failed', nextAttemptAt: new Date('2030-01-01T02:00:00.000Z') });
  assert.deepEqual(afterFailure(6, start, 6), { status: 'exhausted', nextAttemptAt: null });
  assert.deepEqual(afterFailure(1, start, 1), { status: 'exhausted', nextAttemptAt: null });
  // An attempt past the limit (the limit lowered meanwhile) is the last.
  assert.deepEqual(afterFailure(9, start, 6), { status: 'exhausted', nextAttemptAt: null });
});

test('a resend is outside the schedule: a 2xx succeeds the delivery, a failure leaves it as it was', () => {
  const start = new Date('2030-01-01T00:00:00.000Z');
  assert.deepEqual(afterAttempt(true, true, 1, start, 6), { status: 'succeeded', nextAttemptAt: null });
  assert.deepEqual(afterAttempt(false, true, 1, start, 6), { status: null, nextAttemptAt: null });
  assert.deepEqual(afterAttempt(false, true, 6, start, 6), { status: null, nextAttemptAt: null });
  // Automatic attempts follow the schedule by their scheduled number.
  assert.deepEqual(afterAttempt(false, false, 2, start, 6), afterFailure(2, start, 6));
  assert.deepEqual(afterAttempt(true, false, 6, start, 6), { status: 'succeeded', nextAttemptAt: null });
});

test('retryAfterTime: seconds or an HTTP date, held between one second and an hour; nothing for no header or nonsense', () => {
  const now = new Date('2026-11-27T12:00:00Z');
  assert.equal(retryAfterTime('30', now)?.toISOString(), '2026-11-27T12:00:30.000Z');
  assert.equal(retryAfterTime('0', now)?.toISOString(), '2026-11-27T12:00:01.000Z');
  assert.equal(retryAfterTime('86400', now)?.toISOString(), '2026-11-27T13:00:00.000Z');
  assert.equal(retryAfterTime('Fri, 27 Nov 2026 12:05:00 GMT', now)?.toISOString(), '2026-11-27T12:05:00.000Z');
  assert.equal(retryAfterTime(undefined, now), undefined);
  assert.equal(retryAfterTime('soon', now), undefined);
});
