// Vault connections, through the management API and the REST gateway with live
// keys: a project connects Stripe Vault and Forward like a provider account (per mode, its secret
// key sealed, a `test` call answered by the Stripe stand-in, the providers it may forward to, a fee
// per forwarded attempt). A vault connection is never a route of its own; a Stripe vault reference
// is a Stripe PaymentMethod, paid at Stripe directly; a provider the vault does not forward to is
// skipped and named. Forwarding itself is test/vault-forwarding.test.ts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startAdyenStandIn, type AdyenStandIn } from './helpers/adyen-stand-in.js';
import { adyenEu, startLiveStandIns, type LiveStandIns } from './helpers/live-stand-ins.js';
import { rowsWritten } from './helpers/eventually.js';
import { request } from './helpers/stack.js';

const STRIPE_KEY = `sk_live_vault_${Date.now()}`;
const ADYEN_KEY = `AQE_live_vault_${Date.now()}`;
const MERCHANT = 'AcmeECOM';

describe('vault connections, connected like provider accounts (stand-ins)', () => {
  let live: LiveStandIns<{ adyen: AdyenStandIn }>;

  before(async () => {
    live = await startLiveStandIns(STRIPE_KEY, { adyen: () => startAdyenStandIn({ apiKeys: [ADYEN_KEY], merchantAccounts: [MERCHANT] }) });
  });
  after(() => live?.close());

  async function merchant() {
    const m = await live.stack.newMerchantKey('live');
    const connect = (body: Record<string, unknown>) =>
      live.stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, { mode: 'live', ...body });
    return { ...m, connect };
  }
  const vaultBody = (credentials: Record<string, string> = {}) => ({
    provider: 'stripe_vault', name: 'Stripe vault', fee_fixed: 15, fee_bps: 0,
    credentials: { secret_key: STRIPE_KEY, destinations: 'adyen', api_base_url: live.stripe.baseUrl, ...credentials },
  });

  test('a vault is connected per mode with its key sealed, answers test, and bad settings are 422 naming the field', async () => {
    const m = await merchant();
    const res = await m.connect(vaultBody());
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.ok(!JSON.stringify(res.body).includes(STRIPE_KEY));
    const { rows } = await live.stack.query('SELECT provider_code, mode, sealed FROM payments.provider_credentials WHERE provider_account_id = $1', [res.body.id]);
    assert.equal(rows[0].provider_code, 'stripe_vault');
    assert.equal(rows[0].mode, 'live');
    assert.ok(!rows[0].sealed.includes(STRIPE_KEY) && !rows[0].sealed.includes('adyen'), 'the connection is sealed');
    const checked = await live.stack.manage('POST', `/provider-accounts/${res.body.id}/test`);
    assert.equal(checked.status, 200, JSON.stringify(checked.body));
    assert.equal(checked.body.ok, true, JSON.stringify(checked.body));
    assert.equal(live.stripe.requests.at(-1)!.path, '/v1/balance');

    const cases: Array<[Record<string, string>, string]> = [
      [{ destinations: '' }, 'destinations'],
      [{ destinations: 'adyen, Not A Code' }, 'destinations'],
      [{ secret_key: 'sk_test_123' }, 'secret_key'],
    ];
    for (const [credentials, param] of cases) {
      const bad = await m.connect({ ...vaultBody(credentials), name: `bad ${param}` });
      assert.equal(bad.status, 422, JSON.stringify(credentials));
      assert.equal(bad.body.error.code, 'validation_error');
      assert.equal(bad.body.error.param, param, JSON.stringify(bad.body));
    }
  });

  test('a vault connection is never routed to; a Stripe vault reference is paid at Stripe directly, Adyen (not a destination) named as skipped', async () => {
    const m = await merchant();
    const stripeAccount = (await m.connect(live.stripeEu('whsec_live_vault'))).body.id;
    const adyenAccount = (await m.connect(adyenEu(live.adyen, {
      api_key: ADYEN_KEY, merchant_account: MERCHANT, hmac_key: randomBytes(32).toString('hex').toUpperCase(),
    }))).body.id;
    // The cheapest account of all: were it routable, it would be tried first.
    // Forwarding to Checkout.com only (which takes no forwarded card yet): Adyen is not reached.
    const vault = await m.connect({ ...vaultBody({ destinations: 'checkout' }), fee_fixed: 0 });
    assert.equal(vault.status, 201, JSON.stringify(vault.body));

    const pm = await request(live.stack.baseUrl, 'POST', '/v1/payment-methods', {
      key: m.secret, body: { type: 'card', provider_token: 'pm_card_visa', provider_code: 'stripe' },
    });
    const [first] = (await request(live.stack.baseUrl, 'GET', `/v1/payment-methods/${pm.body.id}/credentials`, { key: m.secret })).body.data;
    assert.equal((await request(live.stack.baseUrl, 'POST', `/v1/payment-methods/${pm.body.id}/credentials`, {
      key: m.secret, body: { type: 'vault_token', token: 'pm_card_visa', vault: 'stripe' },
    })).status, 201);
    assert.equal((await request(live.stack.baseUrl, 'DELETE', `/v1/payment-methods/${pm.body.id}/credentials/${first.id}`, { key: m.secret })).status, 200);

    const adyenBefore = live.adyen.requests.length;
    const res = await live.stack.pay(m.secret, { payment_method: { type: 'card', id: pm.body.id } });
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    assert.deepEqual(res.body.attempts.map((a: any) => [a.provider_account_id, a.path, a.vault]), [[stripeAccount, 'direct', null]]);
    assert.deepEqual(res.body.route.skipped, [{
      provider_code: 'adyen', provider_name: 'Adyen', provider_account_id: adyenAccount, reason: 'no credential for Adyen',
    }]);
    assert.equal(live.adyen.requests.length, adyenBefore);
    const [decision] = await rowsWritten('the decision', () => live.stack.query(
      'SELECT candidates, skipped FROM routing_risk.routing_decisions WHERE id = $1', [res.body.route.routing_decision_id]));
    assert.deepEqual(decision.candidates, [stripeAccount]);
    assert.deepEqual(decision.skipped, [{ provider_account_id: adyenAccount, reason: 'no credential for Adyen' }]);

    // A one-off token: the vault connection is neither a candidate nor called skipped.
    const plain = await live.stack.pay(m.secret, { payment_method: { type: 'card', token: 'pm_card_visa' } });
    assert.equal(plain.body.status, 'successful', JSON.stringify(plain.body));
    assert.ok(!plain.body.route.skipped.some((k: any) => k.provider_account_id === vault.body.id));
  });
});
