import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RouteCandidate } from '../../../proto/gen/svc/routing/v1/routing_pb.js';
import { attemptSettledOf, paymentDecidedOf } from '../../platform/internal-events.js';
import { type EventEnvelope } from '../../contract/index.js';
import type { ProviderAnswer } from './attempt-outcomes.js';
import { internalEvents } from './internal-events.js';
import type { AttemptRecord, PaymentRecord } from './model.js';
import { approve, awaitProvider, fail, failOver, settleLate } from './transitions.js';

const AT = new Date('2025-01-02T03:04:05.000Z');
const attempt = (id: string, status = 'processing'): AttemptRecord => ({
  id, attemptNumber: 1, status, outcome: null, providerId: 'prv_a', providerCode: 'a', providerName: 'A',
  providerAccountId: 'pac_a', latencyMs: null, updatedAt: new Date(0),
}) as AttemptRecord;
const payment = (attempts: AttemptRecord[]) => ({
  id: 'pay_1', merchantId: 'mer_1', projectId: 'prj_1', mode: 'test', status: 'created', amount: 1000n, currency: 'EUR',
  country: 'DE', paymentMethodType: 'card', capturedAmount: 0n, captureMethod: 'automatic', attempts, feeAmount: 0n,
  providerId: null, providerCode: null, providerName: null, providerAccountId: null, providerPaymentId: null, failure: null,
  processingTimeMs: null,
  updatedAt: new Date(0), createdAt: new Date(0),
}) as unknown as PaymentRecord;
const answer = (outcome: string): ProviderAnswer => ({
  result: { outcome: outcome as never, providerPaymentId: 'x_1', providerCode: 'c', providerMessage: 'm', fee: 0n },
  latencyMs: 42,
});
const settled = (events: EventEnvelope[]) => events.filter((e) => e.type === 'internal.attempt.settled');
const objects = (events: EventEnvelope[]) => settled(events).map((e) => attemptSettledOf(e)!.data.object);

test('a definite answer announces its attempt once, with what routing learns from', () => {
  const p = payment([attempt('att_1')]);
  const events = settled(internalEvents(approve(p, p.attempts[0], answer('success'), { at: AT })));
  assert.equal(events.length, 1);
  assert.equal(events[0].type, 'internal.attempt.settled');
  assert.deepEqual(
    { mode: events[0].mode, merchant: events[0].merchant_id, project: events[0].project_id, at: events[0].created_at },
    { mode: 'test', merchant: 'mer_1', project: 'prj_1', at: AT.toISOString() },
  );
  assert.deepEqual(objects(events)[0], {
    version: 1, id: 'att_1', payment_id: 'pay_1', attempt_number: 1, provider_id: 'prv_a', provider_code: 'a',
    provider_account_id: 'pac_a', payment_method: 'card', currency: 'EUR', country: 'DE', card_network: null, bin_range: null,
    status: 'succeeded', outcome: 'success', failure_category: null, failure_code: null, latency_ms: 42, amount: 1000n,
    settled_at: AT.toISOString(),
  });
  assert.equal(events[0].data.object.amount, 1000, 'a JSON number as it travels');
});

test('failover announces the failed attempt, not the one it starts', () => {
  const p = payment([attempt('att_1')]);
  const next = { providerId: 'prv_b', providerCode: 'b', providerName: 'B', providerAccountId: 'pac_b' } as RouteCandidate;
  const [failed, ...rest] = objects(internalEvents(failOver(p, p.attempts[0], answer('soft_decline'), next, { at: AT })));
  assert.deepEqual(rest, []);
  assert.deepEqual(
    { id: failed.id, status: failed.status, outcome: failed.outcome, category: failed.failure_category },
    { id: 'att_1', status: 'failed', outcome: 'soft_decline', category: 'soft' },
  );
});

test('an open outcome announces nothing; its later definite answer does', () => {
  const p = payment([attempt('att_1')]);
  assert.deepEqual(internalEvents(awaitProvider(p, p.attempts[0], answer('unknown'), { at: AT })), []);
  const late = settleLate(p, p.attempts[0], answer('technical_error'), AT)!;
  assert.deepEqual(objects(internalEvents(late)).map((o) => [o.id, o.status, o.failure_category]), [['att_1', 'failed', 'technical']]);
});

test('the reader takes version 1 only, complete', () => {
  const p = payment([attempt('att_1')]);
  const [event] = settled(internalEvents(approve(p, p.attempts[0], answer('success'), { at: AT })));
  assert.ok(attemptSettledOf(event));
  const other = (object: Record<string, unknown>) => ({ ...event, data: { object: { ...event.data.object, ...object } } });
  assert.equal(attemptSettledOf(other({ version: 2 })), undefined);
  assert.equal(attemptSettledOf(other({ provider_account_id: '' })), undefined);
  assert.equal(attemptSettledOf({ ...event, type: 'payment.successful' }), undefined);
});

test('payment.decided comes with payment.successful and payment.failed only, once, as the payment stands', () => {
  const decidedOf = (events: EventEnvelope[]) => events.map((e) => paymentDecidedOf(e)).filter((e) => e !== undefined);
  const p = payment([attempt('att_1')]);
  const [won] = decidedOf(internalEvents(approve(p, p.attempts[0], answer('success'), { at: AT, processingTimeMs: 7 })));
  assert.deepEqual(won.data.object, {
    version: 1, id: 'pay_1', status: 'successful', amount: 1000n, captured_amount: 1000n, currency: 'EUR', fee_amount: 0n,
    payment_method: 'card', country: 'DE', provider_id: null, provider_code: null, provider_name: null,
    provider_account_id: null, provider_payment_id: 'x_1', processing_time_ms: 7, failure_code: null,
    failure_category: null, decided_at: AT.toISOString(),
  });

  const manual = payment([attempt('att_2')]);
  manual.captureMethod = 'manual';
  assert.deepEqual(decidedOf(internalEvents(approve(manual, manual.attempts[0], answer('success'), { at: AT }))), [], 'authorized: not decided');
  const open = payment([attempt('att_3')]);
  assert.deepEqual(decidedOf(internalEvents(awaitProvider(open, open.attempts[0], answer('unknown'), { at: AT }))), []);

  const lost = payment([attempt('att_4')]);
  const [failed] = decidedOf(internalEvents(fail(lost, lost.attempts[0], answer('hard_decline'), { at: AT })));
  assert.deepEqual(
    [failed.data.object.status, failed.data.object.captured_amount, failed.data.object.failure_category], ['failed', 0n, 'hard'],
  );
});

test('the change\'s own internal events (a refund\'s) follow, in the payment\'s scope', () => {
  const p = payment([]);
  const events = internalEvents({
    payment: p, attempts: [], timeline: [], events: ['payment.refunded'], at: AT,
    internal: [{ type: 'internal.refund.settled', object: { version: 1, id: 'rf_1', payment_id: 'pay_1' } }],
  });
  assert.deepEqual(events.map((e) => [e.type, e.merchant_id, e.project_id, e.mode, e.data.object.id]), [
    ['internal.refund.settled', 'mer_1', 'prj_1', 'test', 'rf_1'],
  ]);
});

test('the card\'s network and BIN range the provider\'s answer told ride its attempt.settled; unknown stays null', () => {
  const p = payment([attempt('att_1')]);
  const told: ProviderAnswer = { ...answer('success'), result: { ...answer('success').result, card: { network: 'mastercard', binRange: '555544' } } };
  const [o] = objects(internalEvents(approve(p, p.attempts[0], told, { at: AT })));
  assert.deepEqual([o.card_network, o.bin_range], ['mastercard', '555544']);
  const q = payment([attempt('att_2')]);
  const [none] = objects(internalEvents(approve(q, q.attempts[0], answer('success'), { at: AT })));
  assert.deepEqual([none.card_network, none.bin_range], [null, null]);
});
