import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AttemptRecord, PaymentRecord } from './model.js';
import { assertAllowed, awaitingCustomer, inFlight, statusAfterRefunds, type PaymentOperation } from './state-machine.js';

const attempt = (status: string, outcome: string | null) => ({ status, outcome }) as AttemptRecord;
const payment = (status: string, attempts: AttemptRecord[] = []) => ({ id: 'pay_1', status, attempts }) as unknown as PaymentRecord;

const ok = (op: PaymentOperation, p: PaymentRecord) => assert.doesNotThrow(() => assertAllowed(op, p), `${op} from ${p.status}`);
const refused = (op: PaymentOperation, p: PaymentRecord) =>
  assert.throws(() => assertAllowed(op, p), (e: any) => e.metadata.get('svc-error-code') === 'invalid_state_transition', `${op} from ${p.status}`);

const ALL = ['created', 'pending', 'processing', 'authorized', 'captured', 'successful', 'failed', 'cancelled', 'refunded', 'partially_refunded'];

test('capture and authorization expiry: authorized only', () => {
  for (const s of ALL) (s === 'authorized' ? ok : refused)('capture', payment(s));
  for (const s of ALL) (s === 'authorized' ? ok : refused)('expire_authorization', payment(s));
});

test('cancel: created, pending, authorized or awaiting the customer; never while at a provider', () => {
  for (const s of ALL) (['created', 'pending', 'authorized'].includes(s) ? ok : refused)('cancel', payment(s));
  const atProvider = payment('created', [attempt('processing', null)]);
  assert.equal(inFlight(atProvider), true);
  refused('cancel', atProvider);
  const waiting = payment('processing', [attempt('processing', 'requires_action')]);
  assert.equal(awaitingCustomer(waiting), true);
  ok('cancel', waiting);
});

test('refund: successful, captured or partially refunded', () => {
  for (const s of ALL) (['successful', 'captured', 'partially_refunded'].includes(s) ? ok : refused)('refund', payment(s));
});

test('status after refunds: refunded in full, in part, or nothing any more (back to successful or captured)', () => {
  const p = (refundedAmount: bigint, captureMethod = 'automatic') => ({ refundedAmount, capturedAmount: 3000n, captureMethod });
  assert.equal(statusAfterRefunds(p(3000n)), 'refunded');
  assert.equal(statusAfterRefunds(p(1000n)), 'partially_refunded');
  assert.equal(statusAfterRefunds(p(0n)), 'successful', 'automatic capture: its status before any refund');
  assert.equal(statusAfterRefunds(p(0n, 'manual')), 'captured', 'manual capture: its status before any refund');
  assert.equal(statusAfterRefunds(p(1000n, 'manual')), 'partially_refunded');
});
