// Live payments at a Mollie account through the REST gateway: a project connects a Mollie account
// with the management API, pointed at the Mollie stand-in with api_base_url, and the shipped
// connector (the PROVIDERS list) reads the sealed credentials. An iDEAL payment waits for the
// customer on Mollie's page and completes by Mollie's webhook, which the connector answers by
// fetching the payment with the account's key; its partial refund reaches Mollie under our refund
// id, and Mollie's refund webhook confirms it. Forged ids (unknown at Mollie, another account's
// payment) and replays change nothing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startLicensedProviderStack, type LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { startMollieStandIn, type MollieStandIn } from './helpers/mollie-stand-in.js';
import { eventually } from './helpers/eventually.js';
import { notificationRows } from './helpers/provider-notifications.js';
import { request } from './helpers/stack.js';

const liveKey = () => `live_${randomBytes(15).toString('hex')}`;
const KEYS = Array.from({ length: 6 }, liveKey);

describe('live payments at a Mollie account (stand-in)', () => {
  let stack: LicensedProviderStack;
  let mollie: MollieStandIn;
  let keys: string[];

  before(async () => {
    keys = [...KEYS];
    mollie = await startMollieStandIn({ apiKeys: KEYS });
    stack = await startLicensedProviderStack({ env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') } });
  });
  after(async () => {
    await stack?.close();
    await mollie?.close();
  });

  /** A verified merchant's live key, with a Mollie account (its own API key) connected live. */
  async function merchantAtMollie() {
    const m = await stack.newMerchantKey('live');
    const apiKey = keys.shift()!;
    const account = await stack.connectLive(m.projectId, {
      provider: 'mollie', name: 'Mollie NL', fee_bps: 30, fee_fixed: 29,
      credentials: { api_key: apiKey, webhook_base_url: stack.baseUrl, api_base_url: mollie.baseUrl },
    });
    return { ...m, account, apiKey };
  }
  const payIdeal = (key: string, body: Record<string, unknown> = {}) => stack.pay(key, {
    payment_method: { type: 'local', token: 'ideal', provider_code: 'mollie' }, return_url: 'https://shop.example/done', ...body,
  });
  const get = (key: string, path: string) => request(stack.baseUrl, 'GET', path, { key });
  /** What Mollie posts: `id=tr_…`, form-encoded, unsigned, to the webhookUrl the payment named. */
  const post = (url: string, id: string) => fetch(url, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ id }).toString(),
  });
  const notifications = (accountId: string) => notificationRows(stack, accountId);

  test('connect checks the fields: a test key on a live account and a missing webhook_base_url are 422s', async () => {
    const m = await stack.newMerchantKey('live');
    const connect = (credentials: Record<string, string>) => stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, {
      mode: 'live', provider: 'mollie', name: 'Mollie', credentials,
    });
    const testKey = await connect({ api_key: `test_${randomBytes(15).toString('hex')}`, webhook_base_url: stack.baseUrl, api_base_url: mollie.baseUrl });
    assert.equal(testKey.status, 422, JSON.stringify(testKey.body));
    assert.equal(testKey.body.error.param, 'api_key');
    const noHooks = await connect({ api_key: liveKey(), api_base_url: mollie.baseUrl });
    assert.equal(noHooks.status, 422, JSON.stringify(noHooks.body));
    assert.match(JSON.stringify(noHooks.body), /webhook_base_url/);
  });

  test('svc provider test reaches Mollie through its connector', async () => {
    const m = await merchantAtMollie();
    const res = await stack.manage('POST', `/provider-accounts/${m.account}/test`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.ok, true, JSON.stringify(res.body));
    const last = mollie.requests.at(-1)!;
    assert.deepEqual([last.method, last.path, last.query.get('limit'), last.headers.authorization], ['GET', '/v2/payments', '1', `Bearer ${m.apiKey}`]);
  });

  test('an iDEAL payment completes by Mollie\'s webhook; forged ids and replays change nothing; its refund reaches Mollie', async () => {
    const m = await merchantAtMollie();
    const other = await merchantAtMollie();
    const res = await payIdeal(m.secret);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'processing', JSON.stringify(res.body));
    const [attempt] = res.body.attempts;
    assert.equal(attempt.provider_account_id, m.account);
    assert.equal(attempt.outcome, 'requires_action');
    const trId = attempt.provider_payment_id as string;
    assert.deepEqual(res.body.next_action?.type, 'redirect');
    assert.equal(res.body.next_action.url, `${mollie.baseUrl}/checkout/select-issuer/ideal/${trId}`);
    const p = mollie.payments.get(trId)!;
    assert.equal(p.webhookUrl, `${stack.baseUrl}/providers/mollie/webhooks/${m.account}`);
    assert.deepEqual(p.metadata, { payment_id: res.body.id, attempt_id: attempt.id });
    assert.deepEqual(p.amount, { currency: 'EUR', value: '25.00' });
    const [created] = mollie.requests.filter((r) => r.headers['idempotency-key'] === attempt.id);
    assert.equal(created.headers.authorization, `Bearer ${m.apiKey}`);
    const status = async () => (await get(m.secret, `/v1/payments/${res.body.id}`)).body.status;

    // Forgeries first: an id Mollie does not know, and another account's payment posted to this
    // account's route. Both are answered 200 (as Mollie's reference asks) and change nothing.
    const foreign = await payIdeal(other.secret);
    const foreignId = foreign.body.attempts[0].provider_payment_id as string;
    mollie.setStatus(foreignId, 'paid');
    for (const id of ['tr_madeUp42', foreignId]) {
      const forged = await post(p.webhookUrl!, id);
      assert.equal(forged.status, 200, await forged.text());
    }
    const junk = await post(p.webhookUrl!, 'not-a-payment');
    assert.equal(junk.status, 400);
    assert.equal(((await junk.json()) as { error: { code: string } }).error.code, 'invalid_signature');
    assert.equal(await status(), 'processing');
    assert.deepEqual(await notifications(m.account), []);
    // A post before anything happened: recorded (the state is open), nothing changes.
    assert.equal((await post(p.webhookUrl!, trId)).status, 200);
    assert.equal(await status(), 'processing');

    // The customer pays at their bank; Mollie posts the id; the fetched state decides. The post comes
    // within the id's window after the last fetch, so it is read once the window is over (fetch-gate.ts).
    mollie.setStatus(trId, 'paid');
    const delivered = await post(p.webhookUrl!, trId);
    assert.equal(delivered.status, 200, await delivered.text());
    await eventually('the paid state read', async () => ((await status()) === 'successful' ? true : undefined), 10_000);
    const timeline = async () => (await get(m.secret, `/v1/payments/${res.body.id}/timeline`)).body.data as any[];
    const entries = await timeline();
    const applied = entries.filter((e) => e.type === 'provider.notification' && e.data.effect === 'applied');
    assert.equal(applied.length, 1);
    // Mollie's repeat, or a replay of the captured post: the same state, nothing changes.
    assert.equal((await post(p.webhookUrl!, trId)).status, 200);
    assert.equal((await timeline()).length, entries.length);
    assert.deepEqual(await notifications(m.account), [[`${trId}:open`, 'ignored'], [`${trId}:paid`, 'applied']]);

    // A partial refund reaches Mollie under our refund id; Mollie's refund webhook confirms it.
    const refund = await request(stack.baseUrl, 'POST', `/v1/payments/${res.body.id}/refund`, { key: m.secret, body: { amount: 1000 } });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    assert.equal(refund.body.status, 'successful', JSON.stringify(refund.body));
    const reId = refund.body.provider_refund_id as string;
    assert.match(reId, /^re_standin/);
    const sent = mollie.requests.filter((r) => r.headers['idempotency-key'] === refund.body.id);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].path, `/v2/payments/${trId}/refunds`);
    assert.deepEqual(sent[0].body, { amount: { currency: 'EUR', value: '10.00' }, description: `Refund ${refund.body.id}`, metadata: { refund_id: refund.body.id } });
    assert.equal(mollie.payments.get(trId)!.amountRefunded.value, '10.00');
    assert.equal(await status(), 'partially_refunded');
    mollie.setRefundStatus(reId, 'refunded');
    assert.equal((await post(p.webhookUrl!, trId)).status, 200);
    assert.equal((await post(p.webhookUrl!, trId)).status, 200);
    await eventually('the refund read', async () => ((await notifications(m.account)).length === 3 ? true : undefined), 10_000);
    assert.deepEqual((await notifications(m.account)).map(([e]) => e), [`${trId}:open`, `${trId}:paid`, `${reId}:refunded`]);
    assert.equal(await status(), 'partially_refunded');
    assert.equal((await get(m.secret, `/v1/refunds/${refund.body.id}`)).body.status, 'successful');
  });

  test('a payment Mollie fails ends with its table row; a later paid state cannot move it back', async () => {
    const m = await merchantAtMollie();
    const res = await payIdeal(m.secret);
    const trId = res.body.attempts[0].provider_payment_id as string;
    const url = mollie.payments.get(trId)!.webhookUrl!;
    mollie.setStatus(trId, 'canceled');
    assert.equal((await post(url, trId)).status, 200);
    const failed = (await get(m.secret, `/v1/payments/${res.body.id}`)).body;
    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    assert.deepEqual(failed.failure, { code: 'customer_cancelled', category: 'hard', message: 'The customer cancelled the payment on Mollie\'s page.', decline_reason: 'customer_cancelled' });
    // Whatever Mollie says later (here a paid state, as a forged or confused account might show), the ended payment stays ended.
    mollie.setStatus(trId, 'paid');
    assert.equal((await post(url, trId)).status, 200);
    await eventually('the paid state read', async () => ((await notifications(m.account)).length === 2 ? true : undefined), 10_000);
    assert.equal((await get(m.secret, `/v1/payments/${res.body.id}`)).body.status, 'failed');
    assert.deepEqual(await notifications(m.account), [[`${trId}:canceled`, 'applied'], [`${trId}:paid`, 'ignored']]);
  });
});
