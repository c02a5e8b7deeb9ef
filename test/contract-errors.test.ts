import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../services/platform/logger.js';
import { captureLogs } from './helpers/log-sink.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// Walks the contract's Errors, Authentication and Limits tables through the real HTTP gateway.
// Rows owned by an edge rule have their own files: test/ip-allowlist.test.ts (403 ip_not_allowed),
// test/rate-limit.test.ts (429 rate_limited, rate-limit headers), test/idempotency.test.ts
// (Idempotency-Key length, reuse, in progress).

const { stream: logSink, lines: logLines } = captureLogs();

let stack: TestStack;
let testKey: string;
let liveKey: string;

async function expectError(
  res: { status: number; headers: Headers; body: any }, status: number, type: string, code: string, param?: string,
): Promise<void> {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error.type, type);
  assert.equal(res.body.error.code, code);
  assert.equal(res.body.error.param, param);
  assert.equal(typeof res.body.error.message, 'string');
  assert.match(res.body.request_id, /^req_/);
  assert.equal(res.headers.get('x-request-id'), res.body.request_id);
}

const payment = (extra: Record<string, unknown> = {}) => ({ amount: 1000, currency: 'EUR', payment_method: 'card', ...extra });

before(async () => {
  stack = await startTestStack({ logger: createLogger('test', 'trace', logSink) });
  testKey = (await stack.newMerchantKey('test')).secret;
  liveKey = (await stack.newMerchantKey('live')).secret;
});
after(() => stack?.close());

describe('Authentication table', () => {
  test('401 unauthorized: no key, or not a bearer header', async () => {
    for (const headers of [{}, { authorization: `Basic ${Buffer.from('u:p').toString('base64')}` }, { authorization: testKey }] as Record<string, string>[]) {
      await expectError(await request(stack.baseUrl, 'GET', '/v1/me', { headers }), 401, 'authentication_error', 'unauthorized');
    }
  });

  test('401 invalid_api_key: unknown, revoked', async () => {
    await expectError(await request(stack.baseUrl, 'GET', '/v1/me', { key: 'svc_sk_test_unknownunknownunknown00' }),
      401, 'authentication_error', 'invalid_api_key');
    const k = await stack.newMerchantKey('test');
    assert.equal((await request(stack.baseUrl, 'GET', '/v1/me', { key: k.secret })).status, 200);
    assert.equal((await stack.manage('POST', `/keys/${k.keyId}/revoke`)).status, 200);
    await expectError(await request(stack.baseUrl, 'GET', '/v1/me', { key: k.secret }), 401, 'authentication_error', 'invalid_api_key');
  });

  test('a live key cannot exist before business verification', async () => {
    const created = await stack.manage('POST', '/merchants', { name: 'Unverified' });
    const res = await stack.manage('POST', `/projects/${created.body.project.id}/keys`, { mode: 'live', name: 'x' });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'live_mode_not_verified');
  });

  test('403 forbidden: the test-only scenarios endpoint with a live key', async () => {
    await expectError(await request(stack.baseUrl, 'GET', '/v1/test/scenarios', { key: liveKey }), 403, 'permission_error', 'forbidden');
  });

  test('400 test_scenario_not_allowed on payments, refunds and payouts with a live key', async () => {
    await expectError(await request(stack.baseUrl, 'POST', '/v1/payments', { key: liveKey, body: payment({ test_scenario: 'success' }) }),
      400, 'invalid_request_error', 'test_scenario_not_allowed', 'test_scenario');
    await expectError(await request(stack.baseUrl, 'POST', '/v1/payments/pay_x/refund', { key: liveKey, body: { test_scenario: 'success' } }),
      400, 'invalid_request_error', 'test_scenario_not_allowed', 'test_scenario');
    await expectError(await request(stack.baseUrl, 'POST', '/v1/payouts', {
      key: liveKey,
      body: { amount: 100, currency: 'EUR', destination: { type: 'bank_account', display: '•••• 1234' }, test_scenario: 'success' },
    }), 400, 'invalid_request_error', 'test_scenario_not_allowed', 'test_scenario');
  });

  test('test and live data are separate, and so are projects: 404, not 403', async () => {
    const created = await request(stack.baseUrl, 'POST', '/v1/payments', { key: testKey, body: payment() });
    assert.equal(created.status, 201);
    const other = (await stack.newMerchantKey('test')).secret;
    for (const key of [liveKey, other]) {
      await expectError(await request(stack.baseUrl, 'GET', `/v1/payments/${created.body.id}`, { key }), 404, 'not_found_error', 'resource_not_found', 'id');
      const list = await request(stack.baseUrl, 'GET', '/v1/payments', { key });
      assert.equal(list.status, 200);
      assert.ok(!list.body.data.some((p: { id: string }) => p.id === created.body.id));
    }
  });
});

describe('Errors table', () => {
  test('404 not_found_error for an unknown resource and an unknown route', async () => {
    await expectError(await request(stack.baseUrl, 'GET', '/v1/payments/pay_nope', { key: testKey }), 404, 'not_found_error', 'resource_not_found', 'id');
    await expectError(await request(stack.baseUrl, 'GET', '/v1/nothing-here', { key: testKey }), 404, 'not_found_error', 'route_not_found');
    await expectError(await request(stack.baseUrl, 'GET', '/nothing-here'), 404, 'not_found_error', 'route_not_found');
  });

  test('malformed JSON, a wrong content type and an oversized body each get a clear error', async () => {
    const raw = (body: string, contentType: string) => fetch(`${stack.baseUrl}/v1/payments`, {
      method: 'POST', headers: { authorization: `Bearer ${testKey}`, 'content-type': contentType }, body,
    }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() }));
    await expectError(await raw('{"amount": 10,', 'application/json'), 400, 'invalid_request_error', 'invalid_json');
    await expectError(await raw('amount=10', 'application/x-www-form-urlencoded'), 415, 'invalid_request_error', 'unsupported_media_type');
    await expectError(await raw(JSON.stringify(payment({ description: 'x'.repeat(2 * 1024 * 1024) })), 'application/json'),
      413, 'invalid_request_error', 'body_too_large');
  });

  test('422 validation failures name the field path; nothing is created', async () => {
    const before = (await request(stack.baseUrl, 'GET', '/v1/payments?limit=200', { key: testKey })).body.data.length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ currency: 'EUR', payment_method: 'card' }, 'amount'],
      [payment({ amount: 0 }), 'amount'],
      [payment({ amount: 1.5 }), 'amount'],
      [payment({ amount: '1000' }), 'amount'],
      [payment({ amount: 2 ** 53 }), 'amount'],
      [payment({ currency: 'EU' }), 'currency'],
      [payment({ currency: 'EURO' }), 'currency'],
      [payment({ currency: 'XYZ' }), 'currency'],
      [payment({ payment_method: 'cheque' }), 'payment_method'],
      [payment({ payment_method: { type: 'cheque' } }), 'payment_method.type'],
      [payment({ payment_method: { token: 'tok_1' } }), 'payment_method.type'],
      [payment({ payment_method: { type: 'card', id: 'card_1' } }), 'payment_method.id'],
      [payment({ capture_method: 'later' }), 'capture_method'],
      [payment({ country: 'DEU' }), 'country'],
      [payment({ customer: { country: 'D' } }), 'customer.country'],
      [payment({ customer: { email: 'not-an-email' } }), 'customer.email'],
      [payment({ description: 'x'.repeat(501) }), 'description'],
      [payment({ reference: 'r'.repeat(129) }), 'reference'],
      [payment({ return_url: 'not a uri' }), 'return_url'],
      [payment({ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }), 'metadata'],
      [payment({ test_scenario: 'explode' }), 'test_scenario'],
      [payment({ device: { ip: 1 } }), 'device.ip'],
      [payment({ surprise: true }), 'surprise'],
    ];
    for (const [body, param] of cases) {
      await expectError(await request(stack.baseUrl, 'POST', '/v1/payments', { key: testKey, body }), 422, 'invalid_request_error', 'validation_error', param);
    }
    // Limits that are accepted right at the edge.
    for (const body of [
      payment({ amount: Number.MAX_SAFE_INTEGER }), payment({ description: 'x'.repeat(500), reference: 'r'.repeat(128), currency: 'usd', country: 'de' }),
      payment({ metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'])) }),
    ]) {
      assert.equal((await request(stack.baseUrl, 'POST', '/v1/payments', { key: testKey, body })).status, 201, JSON.stringify(body).slice(0, 80));
    }
    const afterCount = (await request(stack.baseUrl, 'GET', '/v1/payments?limit=200', { key: testKey })).body.data.length;
    assert.equal(afterCount, before + 3);
  });

  test('card data is refused with 422, by field name or by a Luhn-valid number anywhere', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [payment({ card_number: '4242424242424242' }), 'card_number'],
      [payment({ payment_method: { type: 'card', cvv: '123' } }), 'payment_method.cvv'],
      [payment({ metadata: { note: '4000 0566 5566 5556' } }), 'metadata.note'],
      [payment({ description: '4242424242424242' }), 'description'],
    ];
    for (const [body, param] of cases) {
      await expectError(await request(stack.baseUrl, 'POST', '/v1/payments', { key: testKey, body }), 422, 'invalid_request_error', 'card_data_not_accepted', param);
    }
  });

  test('limit is 1 to 200 (default 50); a cursor this list did not issue is 400', async () => {
    for (const limit of ['0', '201', 'ten']) {
      await expectError(await request(stack.baseUrl, 'GET', `/v1/payments?limit=${limit}`, { key: testKey }), 422, 'invalid_request_error', 'validation_error', 'limit');
    }
    for (const cursor of ['garbage!', Buffer.from('v1:po_01m80zang4dfw7mkr5dxcarxx4').toString('base64url'), 'djE6']) {
      await expectError(await request(stack.baseUrl, 'GET', `/v1/payments?cursor=${cursor}`, { key: testKey }), 400, 'invalid_request_error', 'invalid_cursor', 'cursor');
    }
    await expectError(await request(stack.baseUrl, 'GET', '/v1/payments?status=successful,exploded', { key: testKey }), 422, 'invalid_request_error', 'validation_error', 'status');
    await expectError(await request(stack.baseUrl, 'GET', '/v1/payments?from=yesterday', { key: testKey }), 422, 'invalid_request_error', 'validation_error', 'from');
  });

  // Every operation is built now (the 501 of operations not built yet is gone): the ledger's lists
  // refuse what they do not know like the others.
  test('ledger lists: unknown filters are 422, a cursor of another list is 400, an unknown settlement 404', async () => {
    const get = (path: string) => request(stack.baseUrl, 'GET', path, { key: testKey });
    await expectError(await get('/v1/transactions?type=chargeback'), 422, 'invalid_request_error', 'validation_error', 'type');
    await expectError(await get('/v1/transactions?status=lost'), 422, 'invalid_request_error', 'validation_error', 'status');
    await expectError(await get('/v1/transactions?cursor=' + Buffer.from('v1:po_01m80zang4dfw7mkr5dxcarxx4').toString('base64url')),
      400, 'invalid_request_error', 'invalid_cursor', 'cursor');
    await expectError(await get('/v1/settlements?status=paid'), 422, 'invalid_request_error', 'validation_error', 'status');
    await expectError(await get('/v1/settlements/stl_unknown'), 404, 'not_found_error', 'resource_not_found', 'id');
  });
});

describe('Logs', () => {
  test('carry request ids but never an API key, an operator token, an Authorization header or card data', async () => {
    const me = await request(stack.baseUrl, 'GET', '/v1/me', { key: testKey });
    await request(stack.baseUrl, 'GET', '/v1/me', { key: `${testKey}x` });
    await request(stack.baseUrl, 'POST', '/v1/payments', { key: testKey, body: payment({ card_number: '4242424242424242' }) });
    await stack.manage('GET', '/merchants/none');
    const logs = logLines.join('');
    assert.ok(logs.length > 0, 'the gateway logged something at trace level');
    assert.match(logs, /req_/);
    // Named as the contract names it; tracing is off here, so no trace ids (test/tracing.test.ts has them).
    const meLines = logLines.map((l) => JSON.parse(l)).filter((l) => l.request_id === me.headers.get('x-request-id'));
    assert.deepEqual(meLines.map((l) => l.msg), ['incoming request', 'request completed']);
    assert.ok(meLines.every((l) => l.trace_id === undefined && l.reqId === undefined));
    for (const secret of [testKey, liveKey, stack.operatorToken, '4242424242424242']) assert.ok(!logs.includes(secret));
    assert.doesNotMatch(logs, /"authorization"/i);
  });
});
