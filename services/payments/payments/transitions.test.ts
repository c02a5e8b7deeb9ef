import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RouteCandidate } from '../../../proto/gen/svc/routing/v1/routing_pb.js';
import type { ProviderAnswer } from './attempt-outcomes.js';
import type { AttemptRecord, PaymentRecord } from './model.js';
import { approve, failOver, refundReversed, refundSettled, settleLate } from './transitions.js';

const AT = new Date('2025-01-02T03:04:05.000Z');
const attempt = (status: string, outcome: string | null = 'success') =>
  ({ id: 'att_1', attemptNumber: 1, status, outcome, updatedAt: new Date(0) }) as AttemptRecord;
const payment = (status: string, attempts: AttemptRecord[] = [], captureMethod = 'manual') =>
  ({
    id: 'pay_1', status, amount: 1000n, capturedAmount: 0n, captureMethod, attempts, updatedAt: new Date(0), createdAt: new Date(0),
  }) as unknown as PaymentRecord;
const answer = (outcome: string, statusQuery?: ProviderAnswer['statusQuery']): ProviderAnswer => ({
  result: { outcome: outcome as never, providerPaymentId: 'x_1', providerCode: 'approved', providerMessage: 'OK', fee: 0n },
  latencyMs: 1,
  statusQuery,
});
const approval = answer('success');

test('approval: automatic completes the payment, manual only holds the funds', () => {
  const auto = payment('created', [attempt('processing', null)], 'automatic');
  const autoChange = approve(auto, auto.attempts[0], approval, { at: AT });
  assert.deepEqual({ status: auto.status, event: autoChange.events[0] }, { status: 'successful', event: 'payment.successful' });
  assert.equal(auto.capturedAmount, 1000n);
  assert.equal(auto.attempts[0].status, 'succeeded');

  const manual = payment('created', [attempt('processing', null)]);
  const manualChange = approve(manual, manual.attempts[0], approval, { at: AT });
  assert.deepEqual({ status: manual.status, event: manualChange.events[0] }, { status: 'authorized', event: 'payment.authorized' });
  assert.equal(manual.capturedAmount, 0n);
  assert.equal(manual.attempts[0].status, 'authorized');
  // Written as an authorization the first time, not a success renamed afterwards.
  assert.deepEqual(manualChange.timeline.map((s) => s.type), ['attempt.authorized', 'payment.authorized']);
});

test('failover: the failed attempt, the failover and the next attempt, in one change without events', () => {
  const p = payment('created', [{ ...attempt('processing', null), providerName: 'A', providerCode: 'a' }]);
  const next = { providerId: 'prv_b', providerCode: 'b', providerName: 'B', providerAccountId: 'pac_b' } as RouteCandidate;
  const change = failOver(p, p.attempts[0], answer('soft_decline'), next, { at: AT });
  assert.deepEqual(change.timeline.map((t) => t.type), ['attempt.failed', 'failover', 'attempt.started']);
  assert.deepEqual(change.events, []);
  assert.equal(change.attempts.length, 2);
  assert.equal(p.status, 'created');
  assert.equal(p.providerCode, 'b');
  assert.equal(p.attemptCount, 2);
});

test('a late answer: its status query is narrated as reconciliation\'s; an open one changes nothing', () => {
  const q = { reason: 'late', found: true, outcome: 'success', error: null, latencyMs: 3 };
  const p = payment('processing', [{ ...attempt('unknown', 'unknown'), latencyMs: 9 }], 'automatic');
  assert.equal(settleLate(p, p.attempts[0], answer('unknown', q), AT), undefined);
  const change = settleLate(p, p.attempts[0], answer('success', q), AT)!;
  assert.deepEqual(change.timeline.map((t) => t.type), ['attempt.timed_out', 'attempt.status_checked', 'attempt.succeeded', 'payment.successful']);
  assert.equal(change.timeline[1].data?.by, 'reconciliation');
  assert.equal(p.attempts[0].latencyMs, 9, 'the attempt keeps the latency of its own call');
  assert.equal(p.processingTimeMs, AT.getTime());
});

test('a refund settling counts its amount; the same refund failing after acceptance gives it back, once, without a payment event', () => {
  const p = { ...payment('successful', [], 'automatic'), capturedAmount: 3000n, refundedAmount: 0n, currency: 'EUR' } as PaymentRecord;
  assert.deepEqual(refundSettled(p, 1000n, AT).events, ['payment.refunded']);
  assert.deepEqual([p.status, p.refundedAmount], ['partially_refunded', 1000n]);
  refundSettled(p, 2000n, AT);
  assert.deepEqual([p.status, p.refundedAmount], ['refunded', 3000n]);

  const second = refundReversed(p, { id: 'rf_2', amount: 2000n }, AT);
  assert.deepEqual([p.status, p.refundedAmount, p.updatedAt], ['partially_refunded', 1000n, AT]);
  assert.deepEqual(second.events, [], 'payment.refunded means a refund settled; payment.successful would announce a charge');
  assert.deepEqual(second.timeline.map((e) => [e.type, e.data]), [['payment.refund_reversed', {
    refund_id: 'rf_2', amount: 2000, refunded_amount: 1000, from_status: 'refunded', status: 'partially_refunded',
  }]]);
  refundReversed(p, { id: 'rf_1', amount: 1000n }, AT);
  assert.deepEqual([p.status, p.refundedAmount], ['successful', 0n], 'nothing refunded: as before the first refund');

  const captured = { ...p, captureMethod: 'manual', status: 'refunded', refundedAmount: 3000n } as PaymentRecord;
  refundReversed(captured, { id: 'rf_3', amount: 3000n }, AT);
  assert.equal(captured.status, 'captured');
  // More than is counted as refunded can never be given back: refused, nothing moved.
  assert.throws(() => refundReversed(captured, { id: 'rf_4', amount: 1n }, AT), /exceeds/);
  assert.deepEqual([captured.status, captured.refundedAmount], ['captured', 0n]);
});
