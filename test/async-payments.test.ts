import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCustomerActionExpiry } from '../services/payments/jobs/index.js';
import { createStore } from '../services/payments/payments/index.js';
import type { Pool } from '../services/platform/db.js';
import { sha256Hex } from '../services/platform/ids.js';
import { createLogger } from '../services/platform/logger.js';
import { type EventEnvelope } from '../services/contract/index.js';
import { startRecordedStack, type RecordedStack } from './helpers/recorded-stack.js';
import { offsetClock, request, type TestStack } from './helpers/stack.js';

const MINUTE = 60_000;
const TOKEN_URL = /^\/sandbox\/actions\/(act_[0-9A-Za-z]{43})$/;

/** Real time plus an offset the tests move, so ids stay time-ordered while minutes pass in an instant. */
const clock = offsetClock();

describe('asynchronous rails and the sandbox hosted page, through the HTTP gateway', () => {
  let stack: TestStack;
  let key: string;
  let recorded: RecordedStack;
  let paymentsPool: Pool;
  let seen: EventEnvelope[];

  before(async () => {
    recorded = await startRecordedStack('async_payments_test', { clock });
    ({ stack, seen, paymentsPool } = recorded);
    key = (await stack.newMerchantKey('test')).secret;
  });
  after(async () => {
    await recorded?.close();
  });

  const get = (path: string) => request(stack.baseUrl, 'GET', path, { key });
  const pay = async (method: string, extra: Record<string, unknown> = {}) => {
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 1000, currency: 'EUR', payment_method: method, ...extra },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  };
  /** The sandbox page as the customer's browser sees it: no API key, redirects not followed. */
  const page = async (path: string, init: { outcome?: string; headers?: Record<string, string> } = {}) => {
    const res = await fetch(new URL(path, stack.baseUrl), {
      method: init.outcome === undefined ? 'GET' : 'POST',
      redirect: 'manual',
      headers: {
        ...(init.outcome !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }),
        ...init.headers,
      },
      body: init.outcome === undefined ? undefined : new URLSearchParams({ outcome: init.outcome }).toString(),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const awaiting = async (method = 'open_banking', extra: Record<string, unknown> = {}) => {
    const p = await pay(method, extra);
    assert.equal(p.status, 'processing', JSON.stringify(p));
    return p;
  };

  const eventsOf = (paymentId: string, types: string[]) => recorded.eventsOf(paymentId, types, 15_000);
  const timeline = async (id: string) => (await get(`/v1/payments/${id}/timeline`)).body.data as any[];

  test('each asynchronous rail answers 201 processing with its next_action; card stays synchronous', async () => {
    const rails: Array<[string, string]> = [['open_banking', 'redirect'], ['qr', 'qr_code'], ['bank_transfer', 'display_details']];
    for (const [method, type] of rails) {
      const before = clock.now().getTime();
      const p = await awaiting(method);
      assert.equal(p.next_action.type, type, method);
      const [, token] = TOKEN_URL.exec(p.next_action.url) ?? [];
      assert.ok(token, `${method}: url ${p.next_action.url} is the sandbox page with its token`);
      assert.equal(p.next_action.qrPayload, type === 'qr_code' ? p.next_action.url : '', method);
      const expires = Date.parse(p.next_action.expiresAt);
      assert.ok(expires >= before + 15 * MINUTE - 1000 && expires <= clock.now().getTime() + 15 * MINUTE, method);
      assert.equal(p.failure, null);
      assert.equal(p.processed_at, null);
      assert.equal(p.fee.amount, 0);
      assert.equal(p.attempts.length, 1);
      assert.deepEqual([p.attempts[0].status, p.attempts[0].outcome, p.attempts[0].fee_amount], ['processing', 'requires_action', 0]);
      assert.deepEqual((await get(`/v1/payments/${p.id}`)).body, p, 'GET shows the same next_action');

      const events = await eventsOf(p.id, ['payment.created', 'payment.processing']);
      assert.deepEqual(events.map((e) => e.type), ['payment.created', 'payment.processing'], method);
      assert.deepEqual(events[1].data.object, p, 'the event carries the payment as the API shows it');
      const types = (await timeline(p.id)).map((t) => t.type);
      for (const t of ['attempt.started', 'attempt.processing', 'customer_action.required', 'payment.processing']) {
        assert.ok(types.includes(t), `${method}: timeline has ${t}: ${types}`);
      }

      // Only the token's hash is kept with the action.
      const { rows } = await paymentsPool.query('SELECT token_hash, type FROM customer_actions WHERE payment_id = $1', [p.id]);
      assert.deepEqual(rows, [{ token_hash: sha256Hex(token), type }]);

      const shown = await page(p.next_action.url);
      assert.equal(shown.status, 200, method);
      assert.match(shown.headers.get('content-type')!, /^text\/html/);
      assert.equal(shown.headers.get('x-frame-options'), 'DENY');
      assert.equal(shown.headers.get('referrer-policy'), 'no-referrer');
      assert.match(shown.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
      assert.match(shown.text, /<html lang="en">/);
      assert.match(shown.text, /€10\.00/);
      for (const label of ['Approve payment', 'Decline payment', 'Let it expire']) assert.ok(shown.text.includes(label), label);
      if (type === 'display_details') assert.match(shown.text, /Transfer details/);
    }
    const card = await pay('card');
    assert.equal(card.status, 'successful');
    assert.equal(card.next_action, null);
  });

  test('approve: successful with the provider\'s fee, next_action cleared, payment.successful; no return_url shows a result page', async () => {
    const p = await awaiting();
    const done = await page(p.next_action.url, { outcome: 'approve' });
    assert.equal(done.status, 200);
    assert.match(done.text, /Payment successful/);
    const after = (await get(`/v1/payments/${p.id}`)).body;
    assert.equal(after.status, 'successful');
    assert.equal(after.next_action, null);
    assert.equal(after.captured_amount, 1000);
    assert.equal(after.fee.amount, 45, 'Demo Beta: 0.20 + 2.5 %');
    assert.ok(after.processed_at);
    assert.deepEqual([after.attempts[0].status, after.attempts[0].outcome, after.attempts[0].fee_amount], ['succeeded', 'success', 45]);
    const events = await eventsOf(p.id, ['payment.successful']);
    assert.deepEqual(events.map((e) => e.type), ['payment.created', 'payment.processing', 'payment.successful']);
    assert.deepEqual(events[2].data.object, after);
    const line = (await timeline(p.id)).find((t) => t.type === 'customer_action.completed');
    assert.deepEqual(line.data, { outcome: 'approved', by: 'customer' });
  });

  test('approve with capture_method manual: authorized (funds held), then capturable', async () => {
    const p = await awaiting('qr', { capture_method: 'manual' });
    await page(p.next_action.url, { outcome: 'approve' });
    const after = (await get(`/v1/payments/${p.id}`)).body;
    assert.deepEqual([after.status, after.captured_amount, after.attempts[0].status], ['authorized', 0, 'authorized']);
    assert.ok((await eventsOf(p.id, ['payment.authorized'])).some((e) => e.type === 'payment.authorized'));
    const captured = await request(stack.baseUrl, 'POST', `/v1/payments/${p.id}/capture`, { key });
    assert.equal(captured.body.status, 'captured');
  });

  test('decline: failed, hard, customer_declined; expire on the page: failed, policy, customer_action_expired', async () => {
    const cases: Array<[string, string, string, string]> = [
      ['decline', 'customer_declined', 'hard', 'hard_decline'],
      ['expire', 'customer_action_expired', 'policy', 'timeout'],
    ];
    for (const [outcome, code, category, attemptOutcome] of cases) {
      const p = await awaiting('bank_transfer');
      const done = await page(p.next_action.url, { outcome });
      assert.equal(done.status, 200, outcome);
      assert.match(done.text, /Payment failed/);
      const after = (await get(`/v1/payments/${p.id}`)).body;
      assert.equal(after.status, 'failed', outcome);
      assert.deepEqual([after.failure.code, after.failure.category], [code, category], outcome);
      assert.equal(after.next_action, null);
      assert.equal(after.fee.amount, 0);
      assert.deepEqual([after.attempts[0].status, after.attempts[0].outcome], ['failed', attemptOutcome]);
      const events = await eventsOf(p.id, ['payment.failed']);
      assert.deepEqual(events.find((e) => e.type === 'payment.failed')!.data.object, after);
      const types = (await timeline(p.id)).map((t) => t.type);
      assert.deepEqual(types.slice(-4), ['customer_action.completed', 'attempt.failed', 'payment.failed', 'event.emitted']);
    }
  });

  test('with a return_url the page sends the customer back with 303 and payment_id; a javascript: URL is never followed', async () => {
    const p = await awaiting('open_banking', { return_url: 'https://shop.example/return?order=42' });
    const done = await page(p.next_action.url, { outcome: 'approve' });
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), `https://shop.example/return?order=42&payment_id=${p.id}`);
    assert.equal(done.headers.get('referrer-policy'), 'no-referrer');

    // A URI by the contract's format, so accepted; the page must not send anyone there.
    const sneaky = await awaiting('open_banking', { return_url: 'javascript:alert(1)' });
    const shown = await page(sneaky.next_action.url, { outcome: 'decline' });
    assert.equal(shown.status, 200);
    assert.doesNotMatch(shown.text, /javascript:/);
  });

  test('completing twice is 409 and the page says so; the payment stays as the first completion left it', async () => {
    const p = await awaiting();
    assert.equal((await page(p.next_action.url, { outcome: 'decline' })).status, 200);
    for (const outcome of ['approve', 'decline', 'expire']) {
      const again = await page(p.next_action.url, { outcome });
      assert.equal(again.status, 409, outcome);
      assert.match(again.text, /already used/);
      assert.match(again.text, /already completed \(declined\)/);
    }
    const revisit = await page(p.next_action.url);
    assert.equal(revisit.status, 200);
    assert.match(revisit.text, /Payment failed/);
    assert.doesNotMatch(revisit.text, /Approve payment/);
    assert.equal((await get(`/v1/payments/${p.id}`)).body.status, 'failed');
    const completions = (await timeline(p.id)).filter((t) => t.type === 'customer_action.completed');
    assert.equal(completions.length, 1);
  });

  test('concurrent completions: exactly one wins, the others get 409', async () => {
    const p = await awaiting();
    const answers = await Promise.all(['approve', 'decline', 'approve', 'expire'].map((outcome) => page(p.next_action.url, { outcome })));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409, 409, 409]);
    assert.equal((await timeline(p.id)).filter((t) => t.type === 'customer_action.completed').length, 1);
  });

  test('cancel while awaiting the customer: cancelled, next_action null, the page no longer completes it', async () => {
    const p = await awaiting('qr');
    const cancelled = await request(stack.baseUrl, 'POST', `/v1/payments/${p.id}/cancel`, { key, body: { reason: 'changed mind' } });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal(cancelled.body.next_action, null);
    assert.equal(cancelled.body.attempts[0].status, 'cancelled');
    assert.deepEqual((await get(`/v1/payments/${p.id}`)).body, cancelled.body);
    const again = await page(p.next_action.url, { outcome: 'approve' });
    assert.equal(again.status, 409);
    assert.match(again.text, /cancelled/);
    const { rows } = await paymentsPool.query('SELECT outcome, completed_at FROM customer_actions WHERE payment_id = $1', [p.id]);
    assert.equal(rows[0].outcome, 'cancelled');
    assert.ok(rows[0].completed_at);
  });

  test('unknown, malformed or payment-id tokens are a 404 page; an API key is no substitute for the token', async () => {
    const p = await awaiting();
    const unknown = `/sandbox/actions/act_${'A'.repeat(43)}`;
    for (const [path, outcome] of [[unknown, undefined], [unknown, 'approve'], ['/sandbox/actions/nonsense', 'approve']] as const) {
      const res = await page(path, { outcome });
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type')!, /^text\/html/);
      assert.match(res.text, /Payment link not found/);
    }
    for (const outcome of [undefined, 'approve']) {
      const res = await page(`/sandbox/actions/${p.id}`, { outcome, headers: { authorization: `Bearer ${key}` } });
      assert.equal(res.status, 404);
    }
    // The page needed no key, and a key does not change what a valid token does.
    const withKey = await page(p.next_action.url, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(withKey.status, 200);
    for (const outcome of ['', 'refund', 'APPROVE']) {
      const bad = await page(p.next_action.url, { outcome });
      assert.equal(bad.status, 422, `outcome "${outcome}"`);
    }
    assert.equal((await get(`/v1/payments/${p.id}`)).body.status, 'processing', 'nothing above changed the payment');
  });

  test('a scenario that fails at the provider never reaches the customer; a recovered time-out still does', async () => {
    const declined = await pay('open_banking', { test_scenario: 'hard_decline' });
    assert.equal(declined.status, 'failed');
    assert.equal(declined.next_action, null);
    const recovered = await awaiting('open_banking', { test_scenario: 'timeout_recovered' });
    assert.equal(recovered.next_action.type, 'redirect');
    assert.equal(recovered.attempts.length, 1);
  });

  test('expiry: the sweep fails actions past expiresAt with payment.failed; one not due is kept; late answers expire', async () => {
    const sweeper = () => createCustomerActionExpiry({
      store: createStore(paymentsPool),
      clock,
      relay: { kick: () => undefined }, // the part's relay polls the outbox and publishes
      logger: createLogger('test', 'silent'),
      intervalMs: 60_000,
      batchSize: 2,
    });
    const due = [await awaiting(), await awaiting('qr'), await awaiting('bank_transfer')];
    const late = await awaiting();
    clock.offsetMs += 16 * MINUTE;
    const notDue = await awaiting();

    // Two replicas sweep at once: every due action expires exactly once.
    await Promise.all([sweeper().sweepExpiredCustomerActions(), sweeper().sweepExpiredCustomerActions()]);
    for (const p of due) {
      const after = (await get(`/v1/payments/${p.id}`)).body;
      assert.equal(after.status, 'failed', p.payment_method.type);
      assert.deepEqual([after.failure.code, after.failure.category], ['customer_action_expired', 'policy']);
      assert.equal(after.next_action, null);
      const events = await eventsOf(p.id, ['payment.failed']);
      assert.deepEqual(events.find((e) => e.type === 'payment.failed')!.data.object, after);
      const lines = (await timeline(p.id)).filter((t) => t.type === 'customer_action.completed');
      assert.deepEqual(lines.map((t) => t.data), [{ outcome: 'expired', by: 'expiry' }]);
    }
    assert.equal((await get(`/v1/payments/${notDue.id}`)).body.status, 'processing');

    // `late` expired too (the sweep got it) or, if it had not, an approval now would expire it.
    const answer = await page(late.next_action.url, { outcome: 'approve' });
    assert.ok([200, 409].includes(answer.status));
    const lateAfter = (await get(`/v1/payments/${late.id}`)).body;
    assert.equal(lateAfter.failure.code, 'customer_action_expired');

    await new Promise((r) => setTimeout(r, 300));
    for (const p of [...due, late]) {
      assert.equal(seen.filter((e) => e.type === 'payment.failed' && (e.data.object as any).id === p.id).length, 1);
    }
    assert.equal(await sweeper().sweepExpiredCustomerActions(), 0, 'nothing else is due');
    assert.equal((await page(notDue.next_action.url, { outcome: 'approve' })).status, 200, 'one not yet due still completes');
  });

  test('an approval arriving after expiresAt, before any sweep, expires the payment instead', async () => {
    const p = await awaiting();
    clock.offsetMs += 16 * MINUTE;
    // The part's own sweep runs every minute; either it or this late answer expires the payment.
    const answer = await page(p.next_action.url, { outcome: 'approve' });
    const after = (await get(`/v1/payments/${p.id}`)).body;
    assert.equal(after.status, 'failed');
    assert.equal(after.failure.code, 'customer_action_expired');
    if (answer.status === 200) {
      const line = (await timeline(p.id)).find((t) => t.type === 'customer_action.completed');
      assert.deepEqual(line.data, { outcome: 'expired', by: 'customer', requested: 'approve' });
    }
  });
});
