import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from './helpers/eventually.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// A test payout used to wait a silent minute in `created`. With the defaults a test-mode
// payout is held 5 s (still cancellable), says when it will be sent (route.scheduled_for), and is
// then sent without anyone moving a clock.

let stack: TestStack;
before(async () => {
  stack = await startTestStack();
});
after(() => stack?.close());

const destination = { type: 'bank_account', token: 'ben_demo_1a2b3c', display: 'DE89 •••• 3000', holder_name: 'Ada Lovelace', country: 'de' };
const payout = (key: string) =>
  request(stack.baseUrl, 'POST', '/v1/payouts', { key, body: { amount: 1000, currency: 'EUR', destination, test_scenario: 'success' } });

test('a test payout says it is sent 5 s after creation (route.scheduled_for), and is sent then without help', async () => {
  const key = (await stack.newMerchantKey('test')).secret;
  const created = await payout(key);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.status, 'created');
  assert.equal(created.body.route.scheduled_for, new Date(Date.parse(created.body.created_at) + 5_000).toISOString());
  const shown = await request(stack.baseUrl, 'GET', `/v1/payouts/${created.body.id}`, { key });
  assert.equal(shown.body.route.scheduled_for, created.body.route.scheduled_for, 'the same on retrieval');
  const sent = await eventually('the payout sent once its hold passed', async () => {
    const p = (await request(stack.baseUrl, 'GET', `/v1/payouts/${created.body.id}`, { key })).body;
    return p.status === 'successful' ? p : undefined;
  }, 60_000);
  assert.ok(Date.now() >= Date.parse(created.body.route.scheduled_for), 'not before its scheduled time');
  assert.equal(sent.route.scheduled_for, created.body.route.scheduled_for, 'kept once sent: when it left');
});

test('within the 5 s window a test payout can still be cancelled, and a cancelled one is never sent', async () => {
  const key = (await stack.newMerchantKey('test')).secret;
  const created = await payout(key);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const cancelled = await request(stack.baseUrl, 'POST', `/v1/payouts/${created.body.id}/cancel`, { key });
  assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
  assert.equal(cancelled.body.status, 'cancelled');
  await new Promise((r) => setTimeout(r, 6_500));
  assert.equal((await request(stack.baseUrl, 'GET', `/v1/payouts/${created.body.id}`, { key })).body.status, 'cancelled');
});
