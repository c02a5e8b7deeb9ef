import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AuthorizeResult } from '../../connectors/index.js';
import type { AttemptRecord, CustomerActionRecord, PaymentRecord } from '../payments/index.js';
import { describeEntry } from '../payments/timeline-descriptions.js';
import { decideHold, decidePayment } from './decide.js';

const AT = new Date('2025-01-02T03:04:05.000Z');
const N = { eventId: 'evt_1', provider: 'Stripe' };
const attempt = (status: string, outcome: string | null) =>
  ({ id: 'att_1', attemptNumber: 1, status, outcome, providerPaymentId: 'pi_1', feeAmount: 0n, latencyMs: 10, updatedAt: new Date(0) }) as AttemptRecord;
const payment = (status: string, a: AttemptRecord, captureMethod = 'automatic') => ({
  id: 'pay_1', status, amount: 1000n, capturedAmount: 0n, refundedAmount: 0n, captureMethod, attempts: [a], failure: null,
  nextAction: status === 'processing' ? { type: 'redirect' } : null, createdAt: new Date(0), updatedAt: new Date(0),
}) as unknown as PaymentRecord;
const action = { attemptId: 'att_1', paymentId: 'pay_1', feeAmount: 39n, expiresAt: new Date(0), completedAt: null } as CustomerActionRecord;
const success: AuthorizeResult = { outcome: 'success', providerPaymentId: 'pi_1', providerCode: 'succeeded', providerMessage: null, fee: 0n };
const declined: AuthorizeResult = {
  outcome: 'hard_decline', providerPaymentId: 'pi_1', providerCode: 'authentication_failed', providerMessage: null, fee: 0n,
  failure: { category: 'hard', code: 'authentication_failed', message: 'The customer did not complete authentication.' },
};

test('a payment awaiting the customer is completed by the provider, even past the action\'s expiry, at the quoted fee', () => {
  const p = payment('processing', attempt('processing', 'requires_action'));
  const d = decidePayment(p, 'att_1', success, action, AT, N);
  assert.equal(d.effect, 'applied');
  assert.equal(p.status, 'successful');
  assert.equal(p.feeAmount, 39n);
  assert.equal(d.change!.closesCustomerAction, 'approved');
  assert.deepEqual(d.change!.events, ['payment.successful']);
  assert.deepEqual(d.change!.timeline.map((e) => e.type),
    ['provider.notification', 'customer_action.completed', 'attempt.succeeded', 'payment.successful']);

  const q = payment('processing', attempt('processing', 'requires_action'), 'manual');
  decidePayment(q, 'att_1', declined, action, AT, N);
  assert.equal(q.status, 'failed');
  assert.equal(q.failure?.code, 'authentication_failed');
});

test('an attempt left unknown is decided; an answer that decides nothing changes nothing', () => {
  const p = payment('processing', attempt('unknown', 'unknown'));
  assert.equal(decidePayment(p, 'att_1', success, undefined, AT, N).effect, 'applied');
  assert.equal(p.status, 'successful');
  const waiting = payment('processing', attempt('processing', 'requires_action'));
  const d = decidePayment(waiting, 'att_1', { ...success, outcome: 'requires_action' }, action, AT, N);
  assert.equal(d.change, undefined);
  assert.equal(waiting.status, 'processing');
});

test('never backwards: a decline after a success is ignored, one that agrees is confirmed; the timeline says which', () => {
  const p = payment('successful', attempt('succeeded', 'success'));
  const late = decidePayment(p, 'att_1', declined, undefined, AT, N);
  assert.deepEqual([late.effect, late.change, p.status], ['ignored', undefined, 'successful']);
  assert.match(describeEntry(late.entry, 'EUR'), /while the payment was successful: it was recorded and ignored, since a notification never moves a payment backwards/);
  const failed = payment('failed', attempt('failed', 'hard_decline'));
  assert.equal(decidePayment(failed, 'att_1', declined, undefined, AT, N).effect, 'confirmed');
  assert.equal(decidePayment(p, 'att_1', success, undefined, AT, N).effect, 'confirmed');
});

test('holds: a release cancels an authorization; a capture failure after the capture is ignored', () => {
  const held = payment('authorized', attempt('authorized', 'success'), 'manual');
  const released = decideHold(held, 'cancel', { outcome: 'success', providerCode: 'canceled', providerMessage: null }, AT, N);
  assert.equal(released.effect, 'applied');
  assert.equal(held.status, 'cancelled');
  assert.deepEqual(released.change!.timeline.at(-1)!.data, { by: 'provider' });
  const captured = payment('captured', attempt('succeeded', 'success'), 'manual');
  const reversed = decideHold(captured, 'capture', { outcome: 'hard_decline', providerCode: null, providerMessage: null }, AT, N);
  assert.deepEqual([reversed.effect, captured.status], ['ignored', 'captured']);
  assert.equal(decideHold(captured, 'capture', { outcome: 'success', providerCode: null, providerMessage: null }, AT, N).effect, 'confirmed');
});

test('a success for an attempt that timed out and was failed over is a late charge to return; after a decline it stays ignored', () => {
  const p = payment('successful', attempt('failed', 'timeout'));
  const d = decidePayment(p, 'att_1', success, undefined, AT, N);
  assert.equal(d.effect, 'applied');
  assert.equal(d.change, undefined, 'the payment does not move');
  assert.equal(p.status, 'successful');
  assert.deepEqual(
    [d.lateCharge?.charge.attemptId, d.lateCharge?.charge.providerPaymentId, d.lateCharge?.charge.amount, d.lateCharge?.charge.held, d.lateCharge?.charge.status],
    ['att_1', 'pi_1', 1000n, false, 'returning'],
  );
  assert.equal(d.lateCharge?.entry.type, 'attempt.late_success');
  const held = decidePayment(payment('failed', attempt('failed', 'timeout'), 'manual'), 'att_1', success, undefined, AT, N);
  assert.equal(held.lateCharge?.charge.held, true, 'only authorized: released, not refunded');

  const declinedBefore = decidePayment(payment('failed', attempt('failed', 'hard_decline')), 'att_1', success, undefined, AT, N);
  assert.deepEqual([declinedBefore.effect, declinedBefore.lateCharge], ['ignored', undefined]);
});
