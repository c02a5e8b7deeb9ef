// A payout whose provider answer is lost: it stays processing with its funds held, is sent again
// with the same payout id once overdue, and its money moves once (docs/decisions.md,
// "Reconciliation of open attempts").
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import { createPeerTransport } from '../services/platform/rpc.js';
import { LedgerService } from '../proto/gen/svc/ledger/v1/ledger_pb.js';
import { PayoutsService } from '../proto/gen/svc/payouts/v1/payouts_pb.js';
import { DemoPayoutConnector, type PayoutConnector, type SendPayoutRequest } from '../services/payouts/index.js';
import { eventually } from './helpers/eventually.js';
import { offsetClock, request, startTestStack, type TestStack } from './helpers/stack.js';

const DAY = 86_400_000;
const PROVIDER_TIMEOUT_MS = 300;
const clock = offsetClock();

/** The demo providers, except that the first answer to a 13.13 payout never arrives (the money did leave). */
function flakyDemo(): { connector: PayoutConnector; sent: SendPayoutRequest[] } {
  const demo = new DemoPayoutConnector();
  const sent: SendPayoutRequest[] = [];
  return {
    sent,
    connector: {
      async send(req) {
        sent.push(req);
        if (req.amount === 1313n && sent.filter((s) => s.payoutId === req.payoutId).length === 1) {
          throw new Error('connection reset by the provider');
        }
        return demo.send(req);
      },
    },
  };
}

describe('a payout whose answer was lost', () => {
  let stack: TestStack;
  const flaky = flakyDemo();
  let ledger: ReturnType<typeof createClient<typeof LedgerService>>;
  let payouts: ReturnType<typeof createClient<typeof PayoutsService>>;

  before(async () => {
    stack = await startTestStack({
      clock,
      env: { PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS) },
      payoutConnectors: { demo_alpha: flaky.connector, demo_beta: flaky.connector, demo_gamma: flaky.connector },
    });
    ledger = createClient(LedgerService, createPeerTransport(stack.serviceUrls.ledger, stack.internalToken));
    payouts = createClient(PayoutsService, createPeerTransport(stack.serviceUrls.payouts, stack.internalToken));
  });
  after(() => stack?.close());

  const get = (key: string, path: string) => request(stack.baseUrl, 'GET', path, { key });
  const balance = async (key: string) => (await get(key, '/v1/balances')).body.data.find((b: any) => b.currency === 'EUR');
  async function committed(merchantId: string): Promise<number> {
    const { rows } = await stack.query(`SELECT committed FROM payouts.payout_funds WHERE merchant_id = $1 AND currency = 'EUR'`, [merchantId]);
    return Number(rows[0].committed);
  }

  test('stays processing with its funds held, is sent again with the same id, and is paid once', async () => {
    const merchant = await stack.newMerchantKey('test');
    const key = merchant.secret;
    const paid = await request(stack.baseUrl, 'POST', '/v1/payments', { key, body: { amount: 20_000, currency: 'EUR', payment_method: 'card' } });
    assert.equal(paid.body.status, 'successful');
    await eventually('the ledger to record the payment', async () =>
      ((await get(key, '/v1/transactions?type=payment')).body.data.length === 1 ? true : undefined));
    clock.offsetMs += DAY + 60_000;
    await ledger.runSettlementCycle({});
    const settled = (await balance(key)).settled_by_providers;
    assert.ok(settled > 1313);

    const created = await request(stack.baseUrl, 'POST', '/v1/payouts', {
      key,
      body: {
        amount: 1313, currency: 'EUR',
        destination: { type: 'bank_account', token: 'ben_demo_9z8y7x', display: 'DE89 •••• 3000', holder_name: 'Ada Lovelace', country: 'DE' },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id;
    const fee = created.body.fee.amount;

    // Its hold passes; the provider is called (by this call or the part's own sweep) and its answer is lost.
    clock.offsetMs += 61_000;
    await payouts.dispatchPayouts({});
    await eventually('the payout to await its provider', async () =>
      ((await get(key, `/v1/payouts/${id}`)).body.status === 'processing' ? true : undefined));
    // Its funds stay committed (a live payout could spend only the rest; the sandbox does not
    // refuse for funds, so the commitment is read where payouts keeps it).
    assert.equal(await committed(merchant.merchantId), 1313 + fee);

    // Not yet overdue: nothing is sent again.
    await payouts.dispatchPayouts({});
    assert.equal(flaky.sent.filter((s) => s.payoutId === id).length, 1);
    // Overdue (3 × the provider time-out + 5 s): sent again with the same id, and now answered.
    clock.offsetMs += 3 * PROVIDER_TIMEOUT_MS + 6_000;
    await payouts.dispatchPayouts({});
    const done = await eventually('the payout to succeed', async () => {
      const p = (await get(key, `/v1/payouts/${id}`)).body;
      return p.status === 'successful' ? p : undefined;
    });
    const calls = flaky.sent.filter((s) => s.payoutId === id);
    assert.equal(calls.length, 2);
    assert.ok(calls.every((c) => c.amount === 1313n && c.destination.token === 'ben_demo_9z8y7x'));
    assert.match(done.route.provider_payout_id, /^demo_/);

    // One payout in the books, and it is what left the balance.
    const txs = await eventually('the ledger to record the payout', async () => {
      const list = (await get(key, '/v1/transactions?type=payout')).body.data;
      return list.length > 0 ? list : undefined;
    });
    assert.equal(txs.length, 1);
    assert.equal(txs[0].amount, -1313);
    // Sending it again changes nothing once it is settled.
    clock.offsetMs += 3 * PROVIDER_TIMEOUT_MS + 6_000;
    await payouts.dispatchPayouts({});
    assert.equal(flaky.sent.filter((s) => s.payoutId === id).length, 2);
  });
});
