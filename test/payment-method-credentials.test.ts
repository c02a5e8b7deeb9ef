// A stored payment method's credentials through the HTTP gateway: the token it was
// created with is its first credential; another provider's token or a vault reference can be
// added, they are listed without their tokens, and removed, the last one never.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ISO_TIMESTAMP } from './helpers/api-assertions.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

const FIRST = 'tok_first_secret_1111';
const SECOND = 'stored_adyen_secret_2222';
const VAULTED = 'pm_vaulted_secret_3333';

describe('a stored payment method\'s credentials, through the HTTP gateway', () => {
  let stack: TestStack;
  let key: string;
  let otherProject: string;

  before(async () => {
    stack = await startTestStack();
    key = (await stack.newMerchantKey('test')).secret;
    otherProject = (await stack.newMerchantKey('test')).secret;
  });
  after(() => stack?.close());

  const createMethod = async (k = key) => (await request(stack.baseUrl, 'POST', '/v1/payment-methods', {
    key: k, body: { type: 'card', provider_token: FIRST, provider_code: 'demo_alpha' },
  })).body;
  const add = (id: string, body: Record<string, unknown>, k = key) =>
    request(stack.baseUrl, 'POST', `/v1/payment-methods/${id}/credentials`, { key: k, body });
  const list = (id: string, k = key) => request(stack.baseUrl, 'GET', `/v1/payment-methods/${id}/credentials`, { key: k });
  const remove = (id: string, credential: string, k = key) =>
    request(stack.baseUrl, 'DELETE', `/v1/payment-methods/${id}/credentials/${credential}`, { key: k });

  test('the creating token is the first credential; a provider token and a vault reference are added; none shows its token', async () => {
    const pm = await createMethod();
    const first = await list(pm.id);
    assert.equal(first.status, 200);
    assert.equal(first.body.payment_method_id, pm.id);
    assert.equal(first.body.data.length, 1);
    const [original] = first.body.data;
    assert.deepEqual(Object.keys(original), [
      'id', 'object', 'payment_method_id', 'type', 'provider_code', 'provider_account_id', 'vault', 'created_at',
    ]);
    assert.match(original.id, /^pmc_/);
    assert.equal(original.object, 'payment_method_credential');
    assert.equal(original.type, 'provider_token');
    assert.equal(original.provider_code, 'demo_alpha');
    assert.equal(original.vault, null);
    assert.match(original.created_at, ISO_TIMESTAMP);

    const adyen = await add(pm.id, { type: 'provider_token', token: SECOND, provider_code: 'demo_beta', provider_account_id: 'pac_abc123' });
    assert.equal(adyen.status, 201, JSON.stringify(adyen.body));
    assert.equal(adyen.body.provider_code, 'demo_beta');
    assert.equal(adyen.body.provider_account_id, 'pac_abc123');
    const vault = await add(pm.id, { type: 'vault_token', token: VAULTED, vault: 'stripe' });
    assert.equal(vault.status, 201, JSON.stringify(vault.body));
    assert.equal(vault.body.type, 'vault_token');
    assert.equal(vault.body.vault, 'stripe');
    assert.equal(vault.body.provider_code, null);

    const all = await list(pm.id);
    assert.deepEqual(all.body.data.map((c: any) => c.id), [original.id, adyen.body.id, vault.body.id]);
    const text = JSON.stringify([first.body, adyen.body, vault.body, all.body]);
    for (const secret of [FIRST, SECOND, VAULTED]) assert.ok(!text.includes(secret), `${secret} is never returned`);

    // Stored for the connectors, in this scope.
    const { rows } = await stack.query(
      'SELECT kind, provider_code, token, mode FROM payments.payment_method_credentials WHERE payment_method_id = $1 ORDER BY id', [pm.id],
    );
    // Marked plain in a stack without PROVIDER_SECRET_KEY; sealed with it (test/security-method-tokens.test.ts).
    assert.deepEqual(rows.map((r: any) => r.token), [FIRST, SECOND, VAULTED].map((t) => `plain:${t}`));
  });

  test('a second vault reference is 409; removing a credential works, the last one is 409', async () => {
    const pm = await createMethod();
    assert.equal((await add(pm.id, { type: 'vault_token', token: 'bt_1', vault: 'basis_theory' })).status, 201);
    const second = await add(pm.id, { type: 'vault_token', token: 'bt_2', vault: 'stripe' });
    assert.equal(second.status, 409);
    assert.equal(second.body.error.code, 'limit_reached');
    assert.ok(second.headers.get('x-request-id'));

    const [original, vault] = (await list(pm.id)).body.data;
    const removed = await remove(pm.id, vault.id);
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.equal(removed.body.id, vault.id);
    assert.deepEqual((await list(pm.id)).body.data.map((c: any) => c.id), [original.id]);

    const last = await remove(pm.id, original.id);
    assert.equal(last.status, 409);
    assert.equal(last.body.error.code, 'invalid_state_transition');
    const again = await remove(pm.id, vault.id);
    assert.equal(again.status, 404);
    assert.equal(again.body.error.code, 'resource_not_found');
  });

  test('bad input is 422 naming the field, and nothing is stored', async () => {
    const pm = await createMethod();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'card_number', token: 'x', provider_code: 'stripe' }, 'type'],
      [{ type: 'provider_token', token: '', provider_code: 'stripe' }, 'token'],
      [{ type: 'provider_token', token: 'x' }, 'provider_code'],
      [{ type: 'provider_token', token: 'x', provider_code: 'Stripe!' }, 'provider_code'],
      [{ type: 'provider_token', token: 'x', provider_code: 'stripe', provider_account_id: 'acct_1' }, 'provider_account_id'],
      [{ type: 'provider_token', token: 'x', provider_code: 'stripe', vault: 'stripe' }, 'vault'],
      [{ type: 'vault_token', token: 'x' }, 'vault'],
      [{ type: 'vault_token', token: 'x', vault: 'spreedly' }, 'vault'],
      [{ type: 'vault_token', token: 'x', vault: 'stripe', provider_code: 'stripe' }, 'provider_code'],
      [{ type: 'provider_token', token: 'x', provider_code: 'stripe', extra: 1 }, 'extra'],
    ];
    for (const [body, param] of cases) {
      const res = await add(pm.id, body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.error.code, 'validation_error', JSON.stringify(body));
      assert.equal(res.body.error.param, param, JSON.stringify(body));
      assert.ok(res.headers.get('x-request-id'));
    }
    const card = await add(pm.id, { type: 'provider_token', token: '4242 4242 4242 4242', provider_code: 'stripe' });
    assert.equal(card.status, 422);
    assert.equal(card.body.error.code, 'card_data_not_accepted');
    assert.equal((await list(pm.id)).body.data.length, 1);
  });

  test('another project\'s method and an unknown one are 404 on every credential operation', async () => {
    const theirs = await createMethod(otherProject);
    const [theirCredential] = (await list(theirs.id, otherProject)).body.data;
    for (const res of [
      await list(theirs.id), await list('pm_doesnotexist'),
      await add(theirs.id, { type: 'provider_token', token: 'x', provider_code: 'stripe' }),
      await remove(theirs.id, theirCredential.id),
    ]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'resource_not_found');
    }
    assert.equal((await list(theirs.id, otherProject)).body.data.length, 1);
  });
});
