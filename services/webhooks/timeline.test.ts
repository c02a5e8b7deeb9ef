import assert from 'node:assert/strict';
import { test } from 'node:test';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { PaymentAttemptRow } from './deliveries.js';
import { paymentIdOf } from './fan-out.js';
import { timelineEntry } from './timeline.js';

const AT = new Date('2030-01-01T00:00:00.000Z');
const row = (over: Partial<PaymentAttemptRow>): PaymentAttemptRow => ({
  id: 'wha_1', attempt_number: 1, manual: false, outcome: 'succeeded', next_attempt_at: null, started_at: AT,
  duration_ms: 40, response_status: 200, error: null, delivery_id: 'whd_1', event_id: 'evt_1',
  event_type: 'payment.successful', endpoint_id: 'we_1', url: 'https://example.com/hooks', ...over,
});

test('each attempt is one entry, told by what it did; its time is when its outcome was known', () => {
  const delivered = timelineEntry(row({}));
  assert.equal(delivered.type, 'webhook.delivered');
  assert.equal(timestampDate(delivered.createdAt!).getTime(), AT.getTime() + 40);
  const retry = new Date('2030-01-01T00:00:30.000Z');
  const failed = timelineEntry(row({ outcome: 'failed', response_status: 503, next_attempt_at: retry }));
  assert.equal(failed.type, 'webhook.failed');
  assert.equal(failed.title, 'Webhook payment.successful failed: HTTP 503');
  assert.match(failed.description, /HTTP 503.*2030-01-01T00:00:30.000Z/);
  const timedOut = timelineEntry(row({ outcome: 'exhausted', response_status: null, error: 'timed out after 10000 ms' }));
  assert.equal(timedOut.type, 'webhook.exhausted');
  assert.equal(timedOut.title, 'Webhook payment.successful exhausted: time-out');
  assert.match(timedOut.description, /timed out after 10000 ms/);
  const refused = timelineEntry(row({ outcome: 'failed', response_status: null, error: 'connect ECONNREFUSED 127.0.0.1:9' }));
  assert.equal(refused.title, 'Webhook payment.successful failed: connection error');
  const resent = timelineEntry(row({ manual: true, outcome: null, response_status: 500 }));
  assert.equal(resent.type, 'webhook.resent');
  assert.match(resent.description, /keeps its status and its retry schedule/);
  for (const e of [delivered, failed, timedOut, refused, resent]) assert.ok(e.description.length > 0);
});

test('an event is about the payment it carries, or the payment of the refund it carries', () => {
  const envelope = (object: Record<string, unknown>) =>
    ({ id: 'evt_1', type: 't', mode: 'test', merchant_id: 'm', project_id: 'p', created_at: AT.toISOString(), data: { object } });
  assert.equal(paymentIdOf(envelope({ object: 'payment', id: 'pay_1' })), 'pay_1');
  assert.equal(paymentIdOf(envelope({ object: 'refund', id: 'rf_1', payment_id: 'pay_2' })), 'pay_2');
  assert.equal(paymentIdOf(envelope({ object: 'payout', id: 'po_1' })), null);
});
