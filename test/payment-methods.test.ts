import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ISO_TIMESTAMP, expectNoPaymentCreated } from './helpers/api-assertions.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

const TOKEN = 'tok_provider_secret_4242';

describe('stored payment methods, through the HTTP gateway', () => {
  let stack: TestStack;
  let key: string;
  let otherProject: string;
  let liveKey: string;
  let sameProjectLive: string;

  before(async () => {
    stack = await startTestStack();
    const mine = await stack.newMerchantKey('test');
    key = mine.secret;
    otherProject = (await stack.newMerchantKey('test')).secret;
    liveKey = (await stack.newMerchantKey('live')).secret;
    // A live key of the same project: only the mode differs.
    await stack.manage('POST', `/merchants/${mine.merchantId}/verify`);
    sameProjectLive = (await stack.manage('POST', `/projects/${mine.projectId}/keys`, { mode: 'live', name: 'live' })).body.secret;
  });
  after(() => stack?.close());

  const createMethod = (k: string, body: Record<string, unknown> = {}) =>
    request(stack.baseUrl, 'POST', '/v1/payment-methods', {
      key: k, body: { type: 'card', provider_token: TOKEN, ...body },
    });

  test('POST creates a pm_ with the contract\'s fields, display as sent, and never the token; GET returns it identically', async () => {
    const created = await createMethod(key, {
      provider_code: 'demo_alpha',
      customer: { id: 'cus_1', email: 'ada@example.com', country: 'de' },
      display: { brand: 'visa', last4: '4242', exp: '12/30' },
    });
    assert.equal(created.status, 201);
    const pm = created.body;
    assert.deepEqual(Object.keys(pm), ['id', 'object', 'type', 'customer_id', 'display', 'status', 'created_at']);
    assert.match(pm.id, /^pm_/);
    assert.equal(pm.object, 'payment_method');
    assert.equal(pm.type, 'card');
    assert.equal(pm.customer_id, 'cus_1');
    assert.deepEqual(pm.display, { brand: 'visa', last4: '4242', exp: '12/30' });
    assert.equal(pm.status, 'active');
    assert.match(pm.created_at, ISO_TIMESTAMP);
    assert.ok(!JSON.stringify(pm).includes(TOKEN), 'the provider token is not returned');

    const fetched = await request(stack.baseUrl, 'GET', `/v1/payment-methods/${pm.id}`, { key });
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body, pm);
    assert.ok(!JSON.stringify(fetched.body).includes(TOKEN));

    // It is stored, in this scope, for the connector that will charge it.
    // Its token is its first credential, bound to the provider that issued it.
    const { rows } = await stack.query(
      'SELECT kind, token, provider_code, mode FROM payments.payment_method_credentials WHERE payment_method_id = $1', [pm.id],
    );
    // This stack has no PROVIDER_SECRET_KEY: the token is kept marked plain until a start with the key
    // seals it (test/security-method-tokens.test.ts).
    assert.deepEqual(rows, [{ kind: 'provider_token', token: `plain:${TOKEN}`, provider_code: 'demo_alpha', mode: 'test' }]);
  });

  test('a minimal method has customer_id null and an empty display', async () => {
    const res = await createMethod(key, { type: 'wallet' });
    assert.equal(res.status, 201);
    assert.equal(res.body.customer_id, null);
    assert.deepEqual(res.body.display, {});
  });

  test('validation: 422 with the field path', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'cheque' }, 'type'],
      [{ provider_token: '' }, 'provider_token'],
      [{ display: { last4: 4242 } }, 'display.last4'],
      [{ customer: { country: 'DEU' } }, 'customer.country'],
      [{ card_token: 'x' }, 'card_token'],
    ];
    for (const [body, param] of cases) {
      const res = await createMethod(key, body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.error.type, 'invalid_request_error');
      assert.equal(res.body.error.code, 'validation_error');
      assert.equal(res.body.error.param, param);
    }
    const missing = await request(stack.baseUrl, 'POST', '/v1/payment-methods', { key, body: { type: 'card' } });
    assert.equal(missing.status, 422);
    assert.equal(missing.body.error.param, 'provider_token');
  });

  test('another project\'s key, the same project\'s live key and an unknown id all get 404', async () => {
    const pm = (await createMethod(key)).body;
    for (const [k, id] of [[otherProject, pm.id], [sameProjectLive, pm.id], [liveKey, pm.id], [key, 'pm_doesnotexist']]) {
      const res = await request(stack.baseUrl, 'GET', `/v1/payment-methods/${id}`, { key: k });
      assert.equal(res.status, 404);
      assert.equal(res.body.error.type, 'not_found_error');
      assert.equal(res.body.error.code, 'resource_not_found');
    }
  });

  test('a payment with its own pm_ succeeds and shows payment_method.id', async () => {
    const pm = (await createMethod(key)).body;
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 1500, currency: 'EUR', payment_method: { type: 'card', id: pm.id } },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.status, 'successful');
    assert.deepEqual(res.body.payment_method, { type: 'card', id: pm.id });
    const fetched = await request(stack.baseUrl, 'GET', `/v1/payments/${res.body.id}`, { key });
    assert.deepEqual(fetched.body.payment_method, { type: 'card', id: pm.id });
  });

  test('a stored method is routed to the provider that issued its token only', async () => {
    const pay = (payment_method: unknown) =>
      request(stack.baseUrl, 'POST', '/v1/payments', { key, body: { amount: 5000, currency: 'EUR', payment_method } });
    const plain = (await pay('card')).body;
    const timeline = async (id: string) => (await request(stack.baseUrl, 'GET', `/v1/payments/${id}/timeline`, { key })).body.data;
    const defaultOrder: string[] = (await timeline(plain.id)).find((t: any) => t.type === 'routing.decided').data.candidates;
    assert.ok(defaultOrder.length > 1);
    const issuer = defaultOrder.at(-1)!;
    const pm = (await createMethod(key, { provider_code: issuer })).body;
    const res = (await pay({ type: 'card', id: pm.id })).body;
    assert.equal(res.status, 'successful');
    assert.equal(res.route.provider.code, issuer, `default routing puts ${defaultOrder[0]} first`);
    const decided = (await timeline(res.id)).find((t: any) => t.type === 'routing.decided');
    assert.deepEqual(decided.data.candidates, [issuer]);
  });

  test('another project\'s or mode\'s pm_, or an unknown one, is refused with 422 on payment_method.id and creates nothing', async () => {
    const theirs = (await createMethod(otherProject)).body;
    const mineInLive = (await createMethod(sameProjectLive)).body;
    await expectNoPaymentCreated(stack, async () => {
      const messages = new Set<string>();
      for (const id of [theirs.id, mineInLive.id, 'pm_doesnotexist']) {
        const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
          key, body: { amount: 1000, currency: 'EUR', payment_method: { type: 'card', id } },
        });
        assert.equal(res.status, 422, id);
        assert.equal(res.body.error.type, 'invalid_request_error');
        assert.equal(res.body.error.code, 'validation_error');
        assert.equal(res.body.error.param, 'payment_method.id');
        messages.add(res.body.error.message.replace(id, '<id>'));
      }
      assert.equal(messages.size, 1, 'a foreign id is answered exactly like an unknown one');
    });
  });

  test('a payment whose type differs from the stored method\'s is refused with 422 on payment_method.type', async () => {
    const pm = (await createMethod(key, { type: 'wallet' })).body;
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 1000, currency: 'EUR', payment_method: { type: 'card', id: pm.id } },
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'validation_error');
    assert.equal(res.body.error.param, 'payment_method.type');
    assert.match(res.body.error.message, /wallet/);
  });
});
