import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideAttempt, SIGN_IN_LIMIT, SIGN_IN_WINDOW_MS } from './throttle.js';

const at = new Date('2026-03-01T12:00:00Z');
const ago = (ms: number) => new Date(at.getTime() - ms);

test('attempts under the limit in the window are allowed', () => {
  assert.deepEqual(decideAttempt([], at), { allowed: true });
  assert.deepEqual(decideAttempt(Array.from({ length: SIGN_IN_LIMIT - 1 }, (_, i) => ago(i * 1000)), at), { allowed: true });
});

test('the attempt over the limit waits until the oldest attempt in the window leaves it', () => {
  const attempts = [ago(60_000), ago(50_000), ago(40_000), ago(30_000), ago(20_000)];
  assert.deepEqual(decideAttempt(attempts, at), { allowed: false, retryAfterSeconds: (SIGN_IN_WINDOW_MS - 60_000) / 1000 });
  // Order does not matter.
  assert.deepEqual(decideAttempt([...attempts].reverse(), at), decideAttempt(attempts, at));
});

test('attempts older than the window do not count (a sliding window, not a fixed one)', () => {
  const old = [ago(SIGN_IN_WINDOW_MS), ago(SIGN_IN_WINDOW_MS + 1), ago(SIGN_IN_WINDOW_MS * 2)];
  const recent = [ago(1000), ago(2000), ago(3000), ago(4000)];
  assert.deepEqual(decideAttempt([...old, ...recent], at), { allowed: true });
  assert.equal(decideAttempt([...old, ...recent, ago(5000)], at).allowed, false);
});

test('the wait is never zero, so a client honouring Retry-After does not retry at once', () => {
  const attempts = Array.from({ length: SIGN_IN_LIMIT }, () => ago(SIGN_IN_WINDOW_MS - 1));
  assert.deepEqual(decideAttempt(attempts, at), { allowed: false, retryAfterSeconds: 1 });
});
