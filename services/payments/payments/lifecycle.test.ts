import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../platform/config.js';
import { expiryCutoff } from '../jobs/index.js';
import { cancel, capture, expireAuthorization } from './lifecycle.js';
import type { AttemptRecord, PaymentRecord } from './model.js';
import { describeEntry } from './timeline-descriptions.js';

const AT = new Date('2025-01-02T03:04:05.000Z');
const attempt = (status: string, outcome: string | null = 'success') =>
  ({ id: 'att_1', status, outcome, feeAmount: 0n, updatedAt: new Date(0) }) as AttemptRecord;
const payment = (status: string, attempts: AttemptRecord[] = [], captureMethod = 'manual') =>
  ({ id: 'pay_1', status, amount: 1000n, capturedAmount: 0n, captureMethod, attempts, updatedAt: new Date(0) }) as unknown as PaymentRecord;

const codeOf = (e: any) => e.metadata.get('svc-error-code');
const paramOf = (e: any) => e.metadata.get('svc-error-param');

test('capture: full by default, partial on request, announced as payment.successful', () => {
  const full = payment('authorized', [attempt('authorized')]);
  const change = capture(full, undefined, AT);
  assert.equal(full.status, 'captured');
  assert.equal(full.capturedAmount, 1000n);
  assert.equal(full.updatedAt, AT);
  assert.equal(full.attempts[0].status, 'succeeded');
  assert.deepEqual(change.attempts, full.attempts);
  assert.deepEqual(change.events, ['payment.successful']);
  assert.deepEqual(change.timeline[0].data, { amount: 1000, released: 0 });

  const partial = payment('authorized', [attempt('authorized')]);
  capture(partial, 1n, AT);
  assert.equal(partial.capturedAmount, 1n);
});

test('capture: 422 below 1 or above the authorization, 409 outside authorized; nothing changes', () => {
  const p = payment('authorized', [attempt('authorized')]);
  assert.throws(() => capture(p, 0n, AT), (e) => codeOf(e) === 'validation_error' && paramOf(e) === 'amount');
  assert.throws(() => capture(p, 1001n, AT), (e) => codeOf(e) === 'validation_error' && paramOf(e) === 'amount');
  assert.equal(p.status, 'authorized');
  assert.equal(p.attempts[0].status, 'authorized');
  for (const s of ['created', 'successful', 'captured', 'cancelled', 'failed']) {
    assert.throws(() => capture(payment(s), undefined, AT), (e) => codeOf(e) === 'invalid_state_transition', s);
  }
});

test('cancel: the held or awaited attempt is cancelled too; the reason goes to the timeline', () => {
  const p = payment('authorized', [attempt('failed', 'soft_decline'), attempt('authorized')]);
  const change = cancel(p, 'duplicate order', AT);
  assert.equal(p.status, 'cancelled');
  assert.deepEqual(p.attempts.map((a) => a.status), ['failed', 'cancelled']);
  assert.equal(change.attempts.length, 1);
  assert.deepEqual(change.events, ['payment.cancelled']);
  assert.equal(describeEntry(change.timeline[0], 'EUR'), 'Cancelled by the merchant, reason: "duplicate order"; nothing will be charged.');
  assert.deepEqual(change.timeline[0].data, { by: 'merchant', reason: 'duplicate order' });

  const waiting = payment('processing', [attempt('processing', 'requires_action')]);
  cancel(waiting, undefined, AT);
  assert.equal(waiting.attempts[0].status, 'cancelled');

  const atProvider = payment('created', [attempt('processing', null)]);
  assert.throws(() => cancel(atProvider, undefined, AT), (e) => codeOf(e) === 'invalid_state_transition');
  assert.equal(atProvider.status, 'created');
});

test('expiry: only an authorization expires, as payment.cancelled', () => {
  const p = payment('authorized', [attempt('authorized')]);
  const change = expireAuthorization(p, 168, AT);
  assert.equal(p.status, 'cancelled');
  assert.deepEqual(change.events, ['payment.cancelled']);
  assert.deepEqual(change.timeline[0].data, { by: 'expiry', ttl_hours: 168 });
  assert.throws(() => expireAuthorization(payment('captured'), 168, AT), (e) => codeOf(e) === 'invalid_state_transition');
});

test('expiry cutoff is now minus the TTL', () => {
  assert.equal(expiryCutoff(AT, 168).toISOString(), '2024-12-26T03:04:05.000Z');
});

test('AUTHORIZATION_TTL_HOURS and EXPIRY_SWEEP_MS: defaults, bounds, named in errors', () => {
  const d = loadConfig({});
  assert.equal(d.authorizationTtlHours, 168);
  assert.equal(d.expirySweepMs, 60_000);
  const c = loadConfig({ AUTHORIZATION_TTL_HOURS: '24', EXPIRY_SWEEP_MS: '5000' });
  assert.equal(c.authorizationTtlHours, 24);
  assert.equal(c.expirySweepMs, 5000);
  for (const [name, value] of [['AUTHORIZATION_TTL_HOURS', '0'], ['AUTHORIZATION_TTL_HOURS', '745'], ['EXPIRY_SWEEP_MS', 'soon']]) {
    assert.throws(() => loadConfig({ [name]: value }), new RegExp(name));
  }
});
