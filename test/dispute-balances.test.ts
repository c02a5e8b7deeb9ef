// A dispute's money from the sandbox to the merchant's balance, through the REST gateway on a real
// stack: a `dispute` scenario payment is charged back (the amount and the demo fee withdrawn), the
// merchant wins with a tracking number (the amount reinstated, the fee kept) or loses (nothing more
// moves), and GET /v1/transactions and GET /v1/balances show exactly those movements, once each.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from './helpers/eventually.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

const { url: natsUrl, skip: withoutNats } = await jetStreamForFile();
/** The demo providers' dispute fee: 15.00 in a two-decimal currency (docs/disputes.md). */
const DEMO_FEE = 1500;

describe('a sandbox dispute in the ledger, through the HTTP gateway', { skip: withoutNats }, () => {
  let stack: TestStack;

  before(async () => {
    stack = await startTestStack({ natsUrl });
  });
  after(async () => {
    await stack?.close();
  });

  const api = (key: string, method: string, path: string, body?: unknown) => request(stack.baseUrl, method, path, { key, body });
  const figures = async (key: string) => {
    const [b] = (await api(key, 'GET', '/v1/balances')).body.data as any[];
    return [b.processed_gross, b.fees, b.processed_net, b.awaiting_provider_settlement] as number[];
  };
  const minus = (x: number[], y: number[]) => y.map((v, i) => v - x[i]);
  /** processed_gross, fees, processed_net, awaiting_provider_settlement of a merchant whose only payment is A with fee f. */
  const paidOnly = (a: number, f: number) => [a, f, a - f, a - f];
  const transactions = (key: string, type: string, count: number) => eventually(`${count} ${type} transactions`, async () => {
    const res = await api(key, 'GET', `/v1/transactions?type=${type}`);
    return res.body.data.length >= count ? res.body.data as any[] : undefined;
  });

  /** A new merchant whose one `dispute` payment is recorded and charged back: its key, payment, dispute and withdrawal. */
  async function chargedBack(amount: number) {
    const { secret: key } = await stack.newMerchantKey('test');
    const pay = await api(key, 'POST', '/v1/payments', { amount, currency: 'EUR', payment_method: 'card', test_scenario: 'dispute' });
    assert.equal(pay.body.status, 'successful', JSON.stringify(pay.body));
    await transactions(key, 'payment', 1);
    const dispute = await eventually('the chargeback', async () => (await api(key, 'GET', `/v1/disputes?payment_id=${pay.body.id}`)).body.data[0]);
    const [withdrawal] = await transactions(key, 'dispute', 1);
    return { key, payment: pay.body, dispute, withdrawal };
  }

  test('charged back, then won: -(A+F), then +A; one transaction per movement', async () => {
    const { key, payment, dispute, withdrawal } = await chargedBack(2500);
    assert.deepEqual(
      [withdrawal.status, withdrawal.entity_type, withdrawal.entity_id, withdrawal.payment_id, withdrawal.amount, withdrawal.fee_amount, withdrawal.net_amount],
      ['successful', 'dispute', dispute.id, payment.id, -2500, DEMO_FEE, -2500 - DEMO_FEE],
    );
    const withdrawn = await figures(key);
    assert.deepEqual(minus(paidOnly(2500, payment.fee.amount), withdrawn), [-2500, DEMO_FEE, -2500 - DEMO_FEE, -2500 - DEMO_FEE]);

    const submitted = await api(key, 'POST', `/v1/disputes/${dispute.id}/evidence`, { shipping_tracking_number: '1Z999AA10123456784', submit: true });
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    await eventually('won', async () => (await api(key, 'GET', `/v1/disputes/${dispute.id}`)).body.status === 'won' || undefined);
    const [reversal] = await transactions(key, 'dispute_reversal', 1);
    assert.deepEqual(
      [reversal.entity_id, reversal.amount, reversal.fee_amount, reversal.net_amount], [dispute.id, 2500, 0, 2500],
    );
    assert.deepEqual(minus(withdrawn, await figures(key)), [2500, 0, 2500, 2500], 'the amount given back, the fee kept');
    const all = (await api(key, 'GET', '/v1/transactions')).body.data as any[];
    assert.deepEqual(all.map((t) => t.type).sort(), ['dispute', 'dispute_reversal', 'payment']);
  });

  test('charged back, then lost: the withdrawal stays and nothing more moves', async () => {
    const { key, payment, dispute } = await chargedBack(4000);
    const withdrawn = await figures(key);
    assert.deepEqual(minus(paidOnly(4000, payment.fee.amount), withdrawn), [-4000, DEMO_FEE, -4000 - DEMO_FEE, -4000 - DEMO_FEE]);
    const submitted = await api(key, 'POST', `/v1/disputes/${dispute.id}/evidence`, { uncategorized_text: 'It was delivered.', submit: true });
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    await eventually('lost', async () => (await api(key, 'GET', `/v1/disputes/${dispute.id}`)).body.status === 'lost' || undefined);
    assert.deepEqual(await figures(key), withdrawn);
    assert.deepEqual((await api(key, 'GET', '/v1/transactions?type=dispute_reversal')).body.data, []);
  });
});
