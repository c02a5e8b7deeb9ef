// Mollie's chargebacks through the REST gateway, with @mollie/api-client pointed at its stand-in:
// Mollie's webhook only names the payment (id=tr_…), so the chargeback is read from Mollie's API
// (the payment with its chargebacks embedded), opened with its amount withdrawn; accept and
// evidence answer dispute_action_unsupported (Mollie takes no answer through its API, and nothing
// is sent); the bank's reversal, read the same way, gives the money back, once.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { expectError } from './helpers/api-assertions.js';
import { eventually } from './helpers/eventually.js';
import { startLicensedProviderStack, type LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { startMollieStandIn, type MollieStandIn } from './helpers/mollie-stand-in.js';
import { request } from './helpers/stack.js';

const KEY = `live_${randomBytes(15).toString('hex')}`;

describe('chargebacks at Mollie, through the REST gateway', () => {
  let stack: LicensedProviderStack;
  let mollie: MollieStandIn;

  before(async () => {
    mollie = await startMollieStandIn({ apiKeys: [KEY] });
    stack = await startLicensedProviderStack({ env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') } });
  });
  after(async () => {
    await stack?.close();
    await mollie?.close();
  });

  test('a chargeback read from Mollie\'s API on its payment webhook; answers are unsupported; its reversal gives the money back once', async () => {
    const m = await stack.newMerchantKey('live');
    const account = await stack.connectLive(m.projectId, {
      provider: 'mollie', name: 'Mollie NL', fee_bps: 30, fee_fixed: 29,
      credentials: { api_key: KEY, webhook_base_url: stack.baseUrl, api_base_url: mollie.baseUrl },
    });
    const api = (method: string, path: string, body?: unknown) => request(stack.baseUrl, method, path, { key: m.secret, body });
    const post = (id: string) => fetch(`${stack.baseUrl}/providers/mollie/webhooks/${account}`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ id }).toString(),
    });
    const res = await stack.pay(m.secret, { payment_method: { type: 'local', token: 'ideal', provider_code: 'mollie' }, return_url: 'https://shop.example/done' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const trId = res.body.attempts[0].provider_payment_id;
    mollie.setStatus(trId, 'paid');
    assert.equal((await post(trId)).status, 200);
    assert.equal((await api('GET', `/v1/payments/${res.body.id}`)).body.status, 'successful');

    const chb = mollie.chargeBack(trId, 'MD06');
    assert.equal((await post(trId)).status, 200);
    // A second post within Mollie's coalescing window is read by the follow-up, a few seconds later.
    const d = await eventually('the chargeback read', async () => (await api('GET', `/v1/disputes?payment_id=${res.body.id}`)).body.data[0]);
    assert.deepEqual(
      [d.provider_dispute_id, d.amount, d.currency, d.reason, d.provider_reason, d.stage, d.status, d.funds_withdrawn, d.attempt_id],
      [chb.id, 2500, 'EUR', 'unrecognized', 'MD06 Disputed authorization', 'chargeback', 'needs_response', true, res.body.attempts[0].id],
    );
    const fetched = mollie.requests.filter((r) => r.path === `/v2/payments/${trId}`).at(-1)!;
    assert.deepEqual(fetched.query.get('embed')?.split(',').sort(), ['chargebacks', 'refunds']);

    const calls = mollie.requests.length;
    expectError(await api('POST', `/v1/disputes/${d.id}/accept`), 422, 'provider_error', 'dispute_action_unsupported', 'id');
    expectError(await api('POST', `/v1/disputes/${d.id}/evidence`, { uncategorized_text: 'Signed mandate on file.', submit: true }),
      422, 'provider_error', 'dispute_action_unsupported', 'id');
    assert.equal(mollie.requests.length, calls, 'nothing was sent to Mollie');
    assert.equal((await api('GET', `/v1/disputes/${d.id}`)).body.status, 'needs_response');

    mollie.reverseChargeback(chb.id);
    assert.equal((await post(trId)).status, 200);
    assert.equal((await post(trId)).status, 200);
    const won = await eventually('the reversal read', async () => {
      const body = (await api('GET', `/v1/disputes/${d.id}`)).body;
      return body.status === 'won' ? body : undefined;
    });
    assert.equal(won.funds_withdrawn, false);
    const moved = await stack.query('SELECT kind FROM payments.dispute_fund_movements WHERE dispute_id = $1 ORDER BY seq', [d.id]);
    assert.deepEqual(moved.rows.map((r) => r.kind), ['withdrawal', 'reinstatement']);
    const rows = await stack.query(
      `SELECT event_id, effect FROM payments.provider_notifications WHERE provider_account_id = $1 AND subject = 'dispute' ORDER BY received_at`, [account],
    );
    assert.deepEqual(rows.rows.map((r) => [r.event_id, r.effect]), [[`${chb.id}:charged_back`, 'applied'], [`${chb.id}:reversed`, 'applied']]);
  });
});
