import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideAttempt, decideWindow, delayAfter, SIGN_IN_WINDOW_MS, FREE_FAILURES, MAX_DELAY_MS } from './throttle-rule.js';

const at = new Date('2026-03-01T12:00:00Z');
const ago = (ms: number) => new Date(at.getTime() - ms);
const failures = (n: number, lastAgoMs = 0) => Array.from({ length: n }, (_, i) => ago(lastAgoMs + i * 1000));

test('the first failures in the window cost nothing: the next attempt is checked at once', () => {
  assert.deepEqual(decideAttempt([], at), { allowed: true });
  assert.deepEqual(decideAttempt(failures(FREE_FAILURES), at), { allowed: true });
});

test('past the free failures each attempt waits a doubling interval after the last failure, at most a minute', () => {
  assert.deepEqual([1, 2, 3, 4].map((k) => delayAfter(FREE_FAILURES + k)), [1000, 2000, 4000, 8000]);
  assert.equal(delayAfter(FREE_FAILURES + 40), MAX_DELAY_MS);
  assert.deepEqual(decideAttempt(failures(FREE_FAILURES + 1), at), { allowed: false, retryAfterSeconds: 1 });
  assert.deepEqual(decideAttempt(failures(FREE_FAILURES + 3, 1000), at), { allowed: false, retryAfterSeconds: 3 });
  // Once the interval has passed the attempt is checked (a right password signs in).
  assert.deepEqual(decideAttempt(failures(FREE_FAILURES + 3, 4000), at), { allowed: true });
  assert.deepEqual(decideAttempt(failures(FREE_FAILURES + 100, MAX_DELAY_MS), at), { allowed: true });
});

test('failures older than the window do not count; order does not matter', () => {
  const old = [ago(SIGN_IN_WINDOW_MS), ago(SIGN_IN_WINDOW_MS + 1), ago(SIGN_IN_WINDOW_MS * 2)];
  assert.deepEqual(decideAttempt([...old, ...failures(FREE_FAILURES)], at), { allowed: true });
  const many = failures(FREE_FAILURES + 2);
  assert.deepEqual(decideAttempt([...many].reverse(), at), decideAttempt(many, at));
});

test('the wait is never zero, so a client honouring Retry-After does not retry at once', () => {
  assert.deepEqual(decideAttempt(failures(FREE_FAILURES + 1, 999), at), { allowed: false, retryAfterSeconds: 1 });
});

test('a sliding-window budget: the limit fits, one more waits until the oldest counted leaves the window', () => {
  const hour = 3_600_000;
  const sends = [ago(50 * 60_000), ago(30 * 60_000), ago(1000)];
  assert.deepEqual(decideWindow(sends, at, 4, hour), { allowed: true });
  assert.deepEqual(decideWindow(sends, at, 3, hour), { allowed: false, retryAfterSeconds: 10 * 60 });
  assert.deepEqual(decideWindow([ago(hour), ...sends.slice(1)], at, 3, hour), { allowed: true });
});
