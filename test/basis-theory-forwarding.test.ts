// Basis Theory as the second vault through the REST gateway with live keys: a project
// connects Stripe, Adyen and a Basis Theory vault forwarding to Adyen, each pointed at its stand-in
// (the official @basis-theory/node-sdk answers the connection's `test` call against the Basis
// Theory stand-in). A card stored with Stripe's token and a Basis Theory token, soft-declined at
// Stripe, is paid at Adyen through Basis Theory's proxy: our request carries the token's
// expressions, and Adyen gets the card only because the stand-in proxy evaluated them. A token the
// proxy refuses never reaches Adyen. Last, everything the stack wrote is searched for the card.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../services/platform/logger.js';
import { startBasisTheoryStandIn, type BasisTheoryStandIn } from './helpers/basis-theory-stand-in.js';
import { cardDataIn, databaseText, streamText, type CardUnderTest } from './helpers/card-data-grep.js';
import { sentUnder } from './helpers/connector-requests.js';
import { captureLogs } from './helpers/log-sink.js';
import { request } from './helpers/stack.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { startForwardingWorld, uniqueCardNumber, type ForwardingMerchant, type ForwardingWorld } from './helpers/vault-forwarding-world.js';

// The stack publishes to real JetStream (the card-data grep reads its stream): CI's, or one of the file's own.
const { url: natsUrl } = await jetStreamForFile();

const BT_KEY = `key_prod_us_${Date.now()}`;
const BT_TOKEN = 'd2cbc1b4-5c3e-45e3-9289-a5d3ae4a5ddf';
const UNKNOWN_TOKEN = '0b7c5a2e-0000-4000-8000-000000000000';
// A month below ten, so the proxy's padding shows in what Adyen receives.
const CARD: CardUnderTest = { number: uniqueCardNumber(), expMonth: '03', expYear: '2036', cvc: '4821' };
const SOFT_DECLINED = 'pm_card_chargeDeclined';

describe('vault forwarding: Basis Theory\'s proxy to Adyen (stand-ins)', () => {
  let world: ForwardingWorld;
  let bt: BasisTheoryStandIn;
  const logs = captureLogs();

  before(async () => {
    world = await startForwardingWorld({ natsUrl, tag: 'bt', cards: {}, logger: createLogger('test', 'debug', logs.stream) });
    bt = await startBasisTheoryStandIn({ apiKeys: [BT_KEY] });
    bt.tokens.set(BT_TOKEN, { number: CARD.number, expiration_month: 3, expiration_year: 2036, cvc: CARD.cvc });
  });
  after(async () => {
    await world?.close();
    await bt?.close();
  });

  const btBody = (credentials: Record<string, string> = {}) => ({
    provider: 'basis_theory', name: 'Basis Theory', fee_fixed: 20, fee_bps: 0,
    credentials: { api_key: BT_KEY, destinations: 'adyen', api_base_url: bt.baseUrl, ...credentials },
  });

  async function merchant(): Promise<ForwardingMerchant & { btAccount: string }> {
    const m = await world.merchant();
    return { ...m, btAccount: await world.stack.connectLive(m.projectId, btBody()) };
  }

  /** A stored card: Stripe's token (soft-declined there) and the Basis Theory token. */
  async function payStored(key: string, btToken: string) {
    const pm = await request(world.stack.baseUrl, 'POST', '/v1/payment-methods', {
      key, body: { type: 'card', provider_token: SOFT_DECLINED, provider_code: 'stripe' },
    });
    assert.equal(pm.status, 201, JSON.stringify(pm.body));
    const added = await request(world.stack.baseUrl, 'POST', `/v1/payment-methods/${pm.body.id}/credentials`, {
      key, body: { type: 'vault_token', token: btToken, vault: 'basis_theory' },
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    return world.stack.pay(key, { amount: 2000, payment_method: { type: 'card', id: pm.body.id } });
  }

  test('a Basis Theory vault is connected with its key sealed; test reads the key\'s application through the SDK; a bad key or list is refused', async () => {
    const m = await merchant();
    const { rows } = await world.stack.query('SELECT provider_code, sealed FROM payments.provider_credentials WHERE provider_account_id = $1', [m.btAccount]);
    assert.equal(rows[0].provider_code, 'basis_theory');
    assert.ok(!rows[0].sealed.includes(BT_KEY), 'the key is sealed');
    const checked = await world.stack.manage('POST', `/provider-accounts/${m.btAccount}/test`);
    assert.deepEqual([checked.status, checked.body.ok], [200, true], JSON.stringify(checked.body));
    const asked = bt.requests.at(-1)!;
    assert.deepEqual([asked.method, asked.path, asked.headers['bt-api-key']], ['GET', '/applications/key', BT_KEY]);

    const bad = await world.stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, {
      mode: 'live', ...btBody({ destinations: 'adyen, Not A Code' }), name: 'bad list',
    });
    assert.deepEqual([bad.status, bad.body.error?.param], [422, 'destinations'], JSON.stringify(bad.body));
    // A destination whose request the vault cannot fill is refused at connect, naming why.
    const unfillable = await world.stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, {
      mode: 'live', ...btBody({ destinations: 'adyen, checkout' }), name: 'to Checkout.com',
    });
    assert.deepEqual([unfillable.status, unfillable.body.error?.param], [422, 'destinations'], JSON.stringify(unfillable.body));
    assert.match(unfillable.body.error.message, /cannot forward to checkout/);
    // Connecting stores without calling; the `test` call tells a key Basis Theory refuses.
    const wrongKey = await world.stack.connectLive(m.projectId, { ...btBody({ api_key: 'key_prod_us_wrong' }), name: 'wrong key' });
    const refused = await world.stack.manage('POST', `/provider-accounts/${wrongKey}/test`);
    assert.deepEqual([refused.body.ok, refused.body.provider_error_code], [false, '401'], JSON.stringify(refused.body));
    assert.equal(refused.body.message, 'Basis Theory: Unauthorized (HTTP 401)');

    // A key whose application may not use tokens in the proxy would fail every forward: test says so.
    const readOnly = await startBasisTheoryStandIn({ apiKeys: [BT_KEY], permissions: ['token:read'] });
    try {
      const weak = await world.stack.connectLive(m.projectId, { ...btBody({ api_base_url: readOnly.baseUrl }), name: 'read only' });
      const res = await world.stack.manage('POST', `/provider-accounts/${weak}/test`);
      assert.deepEqual([res.body.ok, res.body.provider_error_code], [false, 'missing_permission'], JSON.stringify(res.body));
      assert.match(res.body.message, /token:use/);
    } finally {
      await readOnly.close();
    }
  });

  test('a soft decline at Stripe is paid at Adyen through Basis Theory\'s proxy, the vault\'s fee in the attempt\'s', async () => {
    const m = await merchant();
    const res = await payStored(m.secret, BT_TOKEN);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    assert.equal(res.body.attempts.length, 2);
    const [first, second] = res.body.attempts;
    assert.deepEqual([first.provider_account_id, first.outcome, first.path], [m.stripeAccount, 'soft_decline', 'direct']);
    assert.deepEqual([second.provider_account_id, second.outcome, second.path, second.vault], [m.adyenAccount, 'success', 'forwarded', 'basis_theory']);
    // Adyen's price (10 + 1.5 %) plus the vault's 20.
    assert.equal(second.fee_amount, 10 + 30 + 20);

    // Our request to the proxy: Adyen's raw-card /payments carrying the token's expressions.
    const [sent] = bt.requests.filter((r) => r.path === '/proxy' && r.headers['idempotency-key'] === second.id);
    assert.ok(sent, 'the attempt went through the proxy under our attempt id');
    assert.equal(sent.headers['bt-api-key'], BT_KEY);
    assert.match(String(sent.headers['bt-proxy-url']), new RegExp(`^${world.adyen.baseUrl}/checkout/v\\d+/payments$`));
    const expression = (field: string, filter = '') => `{{ token: ${BT_TOKEN} | json: '$.data.${field}'${filter} }}`;
    assert.deepEqual(JSON.parse(sent.body).paymentMethod, {
      type: 'scheme', number: expression('number'), expiryMonth: expression('expiration_month', " | pad_left: 2, '0'"),
      expiryYear: expression('expiration_year'), cvc: expression('cvc'), holderName: '',
    });
    assert.deepEqual(cardDataIn(sent.body, CARD), []);

    // Adyen got the card only because the stand-in proxy evaluated the expressions, with our key.
    const [atAdyen] = sentUnder(world.adyen.requests, second.id);
    assert.equal(atAdyen.headers['x-api-key'], world.adyenKey);
    assert.equal(atAdyen.headers['bt-api-key'], undefined, 'the vault key stays with the vault');
    assert.deepEqual((atAdyen.body as any).paymentMethod, {
      type: 'scheme', number: CARD.number, expiryMonth: '03', expiryYear: '2036', cvc: CARD.cvc, holderName: '',
    });

    const timeline = (await request(world.stack.baseUrl, 'GET', `/v1/payments/${res.body.id}/timeline`, { key: m.secret })).body.data;
    const started = timeline.filter((t: any) => t.type === 'attempt.started').map((t: any) => [t.data.path, t.data.vault]);
    assert.deepEqual(started, [['direct', undefined], ['forwarded', 'basis_theory']]);

    const forwardsBefore = bt.forwarded.length;
    const refund = await request(world.stack.baseUrl, 'POST', `/v1/payments/${res.body.id}/refund`, { key: m.secret, body: { amount: 500 } });
    assert.equal(refund.body.status, 'successful', JSON.stringify(refund.body));
    assert.equal(sentUnder(world.adyen.requests, refund.body.id)[0].path, `/payments/${second.provider_payment_id}/refunds`);
    assert.equal(bt.forwarded.length, forwardsBefore, 'a refund carries no card and goes direct');
  });

  test('a method holding only the Basis Theory token is never sent to Stripe: Stripe is named as skipped, Adyen takes it through the proxy', async () => {
    const m = await merchant();
    const pm = await request(world.stack.baseUrl, 'POST', '/v1/payment-methods', {
      key: m.secret, body: { type: 'card', provider_token: SOFT_DECLINED, provider_code: 'stripe' },
    });
    const [stripeToken] = (await request(world.stack.baseUrl, 'GET', `/v1/payment-methods/${pm.body.id}/credentials`, { key: m.secret })).body.data;
    assert.equal((await request(world.stack.baseUrl, 'POST', `/v1/payment-methods/${pm.body.id}/credentials`, {
      key: m.secret, body: { type: 'vault_token', token: BT_TOKEN, vault: 'basis_theory' },
    })).status, 201);
    assert.equal((await request(world.stack.baseUrl, 'DELETE', `/v1/payment-methods/${pm.body.id}/credentials/${stripeToken.id}`, { key: m.secret })).status, 200);
    const stripeBefore = world.stripe.requests.length;
    const res = await world.stack.pay(m.secret, { amount: 2000, payment_method: { type: 'card', id: pm.body.id } });
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    assert.deepEqual(res.body.attempts.map((a: any) => [a.provider_account_id, a.path, a.vault]), [[m.adyenAccount, 'forwarded', 'basis_theory']]);
    assert.deepEqual(res.body.route.skipped.map((k: any) => [k.provider_account_id, k.reason]), [[m.stripeAccount, 'no credential for Stripe']]);
    assert.equal(world.stripe.requests.length, stripeBefore, 'Stripe was not called');
  });

  test('a token the proxy does not hold never reaches Adyen: the direct status query says so, and nothing is charged', async () => {
    const m = await merchant();
    const res = await payStored(m.secret, UNKNOWN_TOKEN);
    assert.equal(res.body.status, 'failed', JSON.stringify(res.body));
    const second = res.body.attempts[1];
    assert.deepEqual([second.outcome, second.path, second.vault], ['timeout', 'forwarded', 'basis_theory']);
    assert.equal([...world.adyen.payments.values()].filter((p) => p.reference === second.id).length, 0);
    // The status query went to Adyen directly, the expressions still in place, and found nothing.
    const asked = sentUnder(world.adyen.requests, second.id);
    assert.equal(asked.length, 1);
    assert.match(String((asked[0].body as any).paymentMethod.number), /^\{\{ token: /);
    const timeline = (await request(world.stack.baseUrl, 'GET', `/v1/payments/${res.body.id}/timeline`, { key: m.secret })).body.data;
    assert.deepEqual(timeline.filter((t: any) => t.type === 'attempt.status_checked').map((t: any) => t.data.found), [false]);
  });

  test('a forwarded answer lost after Adyen took it is settled by one direct status query, the expressions in place: charged once', async () => {
    const m = await merchant();
    bt.lostAnswers.answers = 1;
    const res = await payStored(m.secret, BT_TOKEN);
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    const second = res.body.attempts[1];
    assert.deepEqual([second.outcome, second.path, second.vault], ['success', 'forwarded', 'basis_theory']);
    const sent = sentUnder(world.adyen.requests, second.id);
    assert.equal(sent.length, 2, 'the forwarded request, then the status query');
    assert.match(String((sent[1].body as any).paymentMethod.number), /^\{\{ token: /, 'the status query holds no card');
    assert.equal([...world.adyen.payments.values()].filter((p) => p.reference === second.id).length, 1, 'one payment at Adyen');
    const timeline = (await request(world.stack.baseUrl, 'GET', `/v1/payments/${res.body.id}/timeline`, { key: m.secret })).body.data;
    assert.deepEqual(timeline.filter((t: any) => t.type === 'attempt.status_checked').map((t: any) => [t.data.found, t.data.outcome]), [[true, 'success']]);
  });

  test('nothing the stack wrote holds the card: database, event stream and logs; the same grep finds it in the stand-in\'s own record', async () => {
    assert.ok(bt.forwarded.length >= 1, 'the tests above forwarded the card');
    await new Promise((r) => setTimeout(r, 500)); // the relay's last publications
    const written = { database: await databaseText(world.stack), stream: await streamText(world.stack), logs: logs.lines.join('') };
    // The stored vault reference is in the dump sealed only, with the provider credentials.
    assert.ok(written.database.includes('aes256gcm:') && written.logs.length > 0, 'the dump and the logs hold what the run wrote');
    assert.ok(!written.database.includes(BT_TOKEN), 'the vault reference is not readable in the dump');
    for (const [where, text] of Object.entries(written)) assert.deepEqual(cardDataIn(text, CARD), [], `card data in the ${where}`);
    // The grep can fail: the stand-ins' own records hold the card.
    assert.deepEqual(cardDataIn(JSON.stringify(bt.forwarded), CARD), ['number', 'cvc', 'expiry']);
  });
});
