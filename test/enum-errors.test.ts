import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { EVENT_TYPES, PAYMENT_SCENARIOS } from '../services/contract/index.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// A value outside an enumeration is refused in the contract's envelope with the values the field
// takes named in the message and listed in error.details, and the closest of them to what was
// sent: through the real gateway, for a body field, a query parameter and the dashboard's API.

let stack: TestStack;
let key: string;

before(async () => {
  stack = await startTestStack();
  key = (await stack.newMerchantKey('test')).secret;
});
after(() => stack?.close());

function assertNamesValues(res: { status: number; headers: Headers; body: any }, param: string, allowed: readonly string[]): string {
  assert.equal(res.status, 422, JSON.stringify(res.body));
  assert.equal(res.body.error.code, 'validation_error');
  assert.equal(res.body.error.param, param);
  assert.equal(res.headers.get('x-request-id'), res.body.request_id);
  assert.deepEqual(res.body.error.details, { allowed_values: [...allowed] });
  const message: string = res.body.error.message;
  assert.doesNotMatch(message, /allowed values$/);
  for (const value of allowed) assert.ok(message.includes(`"${value}"`), `${message} names ${value}`);
  return message;
}

test('test_scenario "declined" names the scenarios and the closest, hard_decline and soft_decline', async () => {
  const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
    key, body: { amount: 1000, currency: 'EUR', payment_method: 'card', test_scenario: 'declined' },
  });
  const message = assertNamesValues(res, 'test_scenario', PAYMENT_SCENARIOS);
  assert.match(message, /"declined" is not; closest: "(hard|soft)_decline", "(hard|soft)_decline"\)$/);
  assert.equal(Number((await stack.query('SELECT count(*) AS n FROM payments.payments')).rows[0].n), 0);
});

test('GET /v1/events?type=payout.* names the event types and the payout ones as closest', async () => {
  const res = await request(stack.baseUrl, 'GET', '/v1/events?type=payout.*', { key });
  const message = assertNamesValues(res, 'type', EVENT_TYPES);
  const closest = message.slice(message.indexOf('closest:'));
  for (const t of EVENT_TYPES) assert.equal(closest.includes(`"${t}"`), t.startsWith('payout.'), `${closest}: ${t}`);
});

test('a value sharing nothing with the enumeration is told the values, and no closest', async () => {
  const res = await request(stack.baseUrl, 'GET', '/v1/events?type=zzz', { key });
  const message = assertNamesValues(res, 'type', EVENT_TYPES);
  assert.match(message, /\("zzz" is not\)$/);
});
