import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAuthorizationExpiry } from '../services/payments/jobs/index.js';
import { createStore } from '../services/payments/payments/index.js';
import type { Pool } from '../services/platform/db.js';
import { createLogger } from '../services/platform/logger.js';
import { type EventEnvelope } from '../services/contract/index.js';
import { startRecordedStack, type RecordedStack } from './helpers/recorded-stack.js';
import { offsetClock, request, type TestStack } from './helpers/stack.js';

const HOUR = 3_600_000;

/** Real time plus an offset the tests move, so ids stay time-ordered while hours pass in an instant. */
const clock = offsetClock();

describe('manual capture, capture, cancel and authorization expiry, through the HTTP gateway', () => {
  let stack: TestStack;
  let key: string;
  let other: string;
  let recorded: RecordedStack;
  let paymentsPool: Pool;
  let seen: EventEnvelope[];

  before(async () => {
    recorded = await startRecordedStack('capture_cancel_test', { clock });
    ({ stack, seen, paymentsPool } = recorded);
    key = (await stack.newMerchantKey('test')).secret;
    other = (await stack.newMerchantKey('test')).secret;
  });
  after(async () => {
    await recorded?.close();
  });

  const post = (path: string, body?: unknown, k = key) => request(stack.baseUrl, 'POST', path, { key: k, body });
  const get = (path: string) => request(stack.baseUrl, 'GET', path, { key });
  const authorize = async (amount = 1000) => {
    const res = await post('/v1/payments', { amount, currency: 'EUR', payment_method: 'card', capture_method: 'manual' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'authorized');
    return res.body;
  };
  const expectError = (res: { status: number; body: any }, status: number, type: string, code: string, param?: string) => {
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.equal(res.body.error.type, type);
    assert.equal(res.body.error.code, code);
    assert.equal(res.body.error.param, param);
  };
  const conflict = (res: { status: number; body: any }, param = 'id') =>
    expectError(res, 409, 'state_error', 'invalid_state_transition', param);

  /** The event types seen for a payment, once `types` have all arrived (or after 10 s). */
  const eventsOf = (paymentId: string, types: string[]) => recorded.eventsOf(paymentId, types, 10_000);

  async function timelineOf(paymentId: string): Promise<Array<{ type: string; title: string; description: string | null; data: any }>> {
    const { rows } = await paymentsPool.query(
      'SELECT type, title, description, data FROM timeline_events WHERE payment_id = $1 ORDER BY id', [paymentId],
    );
    return rows;
  }

  test('a manual payment is authorized: 201, captured_amount 0, funds held at the attempt, fee known', async () => {
    const p = await authorize(1000);
    assert.equal(p.capture_method, 'manual');
    assert.equal(p.captured_amount, 0);
    assert.equal(p.refunded_amount, 0);
    assert.equal(p.failure, null);
    assert.equal(p.attempts.length, 1);
    assert.equal(p.attempts[0].status, 'authorized');
    assert.equal(p.attempts[0].outcome, 'success');
    assert.ok(p.fee.amount > 0);
    const fetched = await get(`/v1/payments/${p.id}`);
    assert.deepEqual(fetched.body, p);
  });

  test('full capture (no body): captured, captured_amount = amount, attempt succeeded, fee unchanged', async () => {
    const p = await authorize(1000);
    const res = await post(`/v1/payments/${p.id}/capture`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'captured');
    assert.equal(res.body.captured_amount, 1000);
    assert.equal(res.body.amount, 1000);
    assert.deepEqual(res.body.fee, p.fee);
    assert.equal(res.body.attempts[0].status, 'succeeded');
    assert.deepEqual((await get(`/v1/payments/${p.id}`)).body, res.body);
    const empty = await authorize(700);
    const withEmptyBody = await post(`/v1/payments/${empty.id}/capture`, {});
    assert.equal(withEmptyBody.status, 200);
    assert.equal(withEmptyBody.body.captured_amount, 700);
  });

  test('partial capture captures the amount asked for and releases the rest', async () => {
    const p = await authorize(1000);
    const res = await post(`/v1/payments/${p.id}/capture`, { amount: 400 });
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'captured');
    assert.equal(res.body.captured_amount, 400);
    assert.equal(res.body.amount, 1000);
    const captured = (await timelineOf(p.id)).find((t) => t.type === 'payment.captured')!;
    assert.deepEqual(captured.data, { amount: 400, released: 600 });
    conflict(await post(`/v1/payments/${p.id}/capture`, { amount: 600 }));
  });

  test('capture refused: twice, above the authorized amount, an automatic payment, after cancel', async () => {
    const p = await authorize(1000);
    assert.equal((await post(`/v1/payments/${p.id}/capture`)).status, 200);
    conflict(await post(`/v1/payments/${p.id}/capture`));

    const q = await authorize(1000);
    expectError(await post(`/v1/payments/${q.id}/capture`, { amount: 1001 }), 422, 'invalid_request_error', 'validation_error', 'amount');
    assert.equal((await get(`/v1/payments/${q.id}`)).body.status, 'authorized', 'a refused capture changes nothing');

    const automatic = await post('/v1/payments', { amount: 500, currency: 'EUR', payment_method: 'card' });
    assert.equal(automatic.body.status, 'successful');
    conflict(await post(`/v1/payments/${automatic.body.id}/capture`));

    assert.equal((await post(`/v1/payments/${q.id}/cancel`)).status, 200);
    conflict(await post(`/v1/payments/${q.id}/capture`));
  });

  test('capture amount below 1 is 422 validation_error on amount', async () => {
    const p = await authorize(1000);
    for (const amount of [0, -5, 1.5, '100']) {
      expectError(await post(`/v1/payments/${p.id}/capture`, { amount }), 422, 'invalid_request_error', 'validation_error', 'amount');
    }
    assert.equal((await get(`/v1/payments/${p.id}`)).body.status, 'authorized');
  });

  test('cancel an authorization: cancelled, attempt cancelled, reason on the timeline', async () => {
    const p = await authorize(1000);
    const res = await post(`/v1/payments/${p.id}/cancel`, { reason: 'customer changed their mind' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'cancelled');
    assert.equal(res.body.captured_amount, 0);
    assert.equal(res.body.attempts[0].status, 'cancelled');
    const cancelled = (await timelineOf(p.id)).find((t) => t.type === 'payment.cancelled')!;
    assert.equal(cancelled.description, 'Cancelled by the merchant, reason: "customer changed their mind"; nothing will be charged.');
    assert.deepEqual(cancelled.data, { by: 'merchant', reason: 'customer changed their mind' });
    conflict(await post(`/v1/payments/${p.id}/cancel`), 'id');
  });

  test('cancel refused for a successful or captured payment; reason over 500 characters is 422', async () => {
    const automatic = await post('/v1/payments', { amount: 500, currency: 'EUR', payment_method: 'card' });
    conflict(await post(`/v1/payments/${automatic.body.id}/cancel`));
    const p = await authorize(1000);
    expectError(await post(`/v1/payments/${p.id}/cancel`, { reason: 'x'.repeat(501) }), 422, 'invalid_request_error',
      'validation_error', 'reason');
    await post(`/v1/payments/${p.id}/capture`);
    conflict(await post(`/v1/payments/${p.id}/cancel`));
  });

  test('404 for an unknown id and for another project\'s payment', async () => {
    const p = await authorize(1000);
    for (const op of ['capture', 'cancel']) {
      for (const [k, id] of [[key, 'pay_doesnotexist'], [other, p.id]]) {
        expectError(await post(`/v1/payments/${id}/${op}`, undefined, k), 404, 'not_found_error', 'resource_not_found', 'id');
      }
    }
    assert.equal((await get(`/v1/payments/${p.id}`)).body.status, 'authorized');
  });

  test('N concurrent captures of one authorization: exactly one 200, the rest 409', async () => {
    const p = await authorize(1000);
    const results = await Promise.all(Array.from({ length: 8 }, () => post(`/v1/payments/${p.id}/capture`, { amount: 300 })));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((r) => r.status === 409)) conflict(r);
    const final = (await get(`/v1/payments/${p.id}`)).body;
    assert.equal(final.status, 'captured');
    assert.equal(final.captured_amount, 300);
    const events = await eventsOf(p.id, ['payment.successful']);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(events.filter((e) => e.type === 'payment.successful').length, 1);
  });

  test('a capture racing a cancel: exactly one wins', async () => {
    for (let i = 0; i < 3; i++) {
      const p = await authorize(1000);
      const [c, x] = await Promise.all([post(`/v1/payments/${p.id}/capture`), post(`/v1/payments/${p.id}/cancel`)]);
      assert.deepEqual([c.status, x.status].sort(), [200, 409]);
      const final = (await get(`/v1/payments/${p.id}`)).body;
      assert.equal(final.status, c.status === 200 ? 'captured' : 'cancelled');
    }
  });

  test('events: payment.authorized, then payment.successful on capture; payment.cancelled on cancel', async () => {
    const p = await authorize(1000);
    const captured = await post(`/v1/payments/${p.id}/capture`, { amount: 250 });
    const events = await eventsOf(p.id, ['payment.created', 'payment.authorized', 'payment.successful']);
    assert.deepEqual(events.map((e) => e.type).sort(), ['payment.authorized', 'payment.created', 'payment.successful']);
    assert.deepEqual(events.find((e) => e.type === 'payment.authorized')!.data.object, p);
    assert.deepEqual(events.find((e) => e.type === 'payment.successful')!.data.object, captured.body);

    const q = await authorize(1000);
    const cancelled = await post(`/v1/payments/${q.id}/cancel`);
    const qEvents = await eventsOf(q.id, ['payment.cancelled']);
    const event = qEvents.find((e) => e.type === 'payment.cancelled')!;
    assert.deepEqual(event.data.object, cancelled.body);
    assert.match(event.id, /^evt_/);
    assert.equal(event.mode, 'test');
  });

  test('expiry: an authorization past the TTL is cancelled by the sweep with payment.cancelled; one not due is kept', async () => {
    const sweeper = () => createAuthorizationExpiry({
      store: createStore(paymentsPool),
      clock,
      relay: { kick: () => undefined }, // the part's relay polls the outbox and publishes
      logger: createLogger('test', 'silent'),
      ttlHours: 168,
      intervalMs: 60_000,
      batchSize: 2,
    });
    const due = await authorize(1000);
    const dueMore = [await authorize(100), await authorize(200), await authorize(300), await authorize(400)];
    clock.offsetMs += 100 * HOUR;
    const notDue = await authorize(1000);
    // A millisecond before `due` is due, only the older authorizations earlier tests left are.
    await sweeper().sweepExpiredAuthorizations(new Date(Date.parse(due.processed_at) + 168 * HOUR - 1));
    for (const p of [due, ...dueMore, notDue]) assert.equal((await get(`/v1/payments/${p.id}`)).body.status, 'authorized');
    clock.offsetMs += 68 * HOUR + 60_000;

    // Two replicas sweep at once: every due authorization is cancelled exactly once.
    const counts = await Promise.all([sweeper().sweepExpiredAuthorizations(), sweeper().sweepExpiredAuthorizations()]);
    assert.equal(counts[0] + counts[1], 5);

    const expired = (await get(`/v1/payments/${due.id}`)).body;
    assert.equal(expired.status, 'cancelled');
    assert.equal(expired.attempts[0].status, 'cancelled');
    const kept = (await get(`/v1/payments/${notDue.id}`)).body;
    assert.equal(kept.status, 'authorized');
    const events = await eventsOf(due.id, ['payment.cancelled']);
    assert.deepEqual(events.find((e) => e.type === 'payment.cancelled')!.data.object, expired);
    const line = (await timelineOf(due.id)).find((t) => t.type === 'payment.cancelled')!;
    assert.equal(line.title, 'Authorization expired');
    assert.deepEqual(line.data, { by: 'expiry', ttl_hours: 168 });
    for (const p of dueMore) await eventsOf(p.id, ['payment.cancelled']);
    await new Promise((r) => setTimeout(r, 300));
    for (const p of [due, ...dueMore]) {
      assert.equal(seen.filter((e) => e.type === 'payment.cancelled' && (e.data.object as any).id === p.id).length, 1);
    }
    assert.equal(seen.filter((e) => (e.data.object as any).id === notDue.id && e.type === 'payment.cancelled').length, 0);
    conflict(await post(`/v1/payments/${due.id}/capture`));
    assert.equal((await post(`/v1/payments/${notDue.id}/capture`)).status, 200, 'an authorization not yet due still captures');
    assert.equal(await sweeper().sweepExpiredAuthorizations(), 0);
  });
});
