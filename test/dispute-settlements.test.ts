// A dispute's money end to end in the ledger, on the real stack: live payments through the REST
// gateway to an Adyen and a Stripe account (the official SDKs pointed at the loopback stand-ins);
// the dispute movements payments writes (internal.dispute.funds_moved) are published on the
// stack's JetStream stream as payments would; GET /v1/transactions lists and filters them and
// GET /v1/balances moves exactly as the provider's balance does. Then the providers' settlements:
// Adyen's Settlement details report with Chargeback, ChargebackReversed and SecondChargeback lines
// imports (no longer refused) and its items are the dispute transactions; a Stripe payout with
// the dispute's balance transactions settles them instead of counting them as costs.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startAdyenStandIn, type AdyenStandIn } from './helpers/adyen-stand-in.js';
import { adyenSettlementReport, settledLine, type ReportLine } from './helpers/adyen-settlement-report.js';
import { fundsMoved, publishAll, type MovedFunds } from './helpers/dispute-movements.js';
import { eventually } from './helpers/eventually.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';
import { runSvc } from './helpers/svc-cli.js';

const { url: natsUrl, skip: withoutNats } = await jetStreamForFile();
const ADYEN_KEY = `AQE_live_standin_${randomBytes(6).toString('hex')}`;
const MERCHANT = 'AcmeECOM';
const STRIPE_KEY = `sk_live_standin_${randomBytes(6).toString('hex')}`;

describe('dispute movements in the ledger and in providers\' settlements', { skip: withoutNats }, () => {
  let stack: TestStack;
  let adyen: AdyenStandIn;
  let stripe: StripeStandIn;
  let dir: string;

  before(async () => {
    adyen = await startAdyenStandIn({ apiKeys: [ADYEN_KEY], merchantAccounts: [MERCHANT] });
    stripe = await startStripeStandIn({ secretKeys: [STRIPE_KEY] });
    stack = await startTestStack({ natsUrl, env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') } });
    dir = join(tmpdir(), `dispute-settlements-${randomBytes(4).toString('hex')}`);
    await mkdir(dir, { recursive: true });
  });
  after(async () => {
    await stack?.close();
    await stripe?.close();
    await adyen?.close();
  });

  const svc = (...args: string[]) => runSvc(args, { SVC_URL: stack.baseUrl, SVC_OPERATOR_TOKEN: stack.operatorToken });
  const get = (key: string, path: string) => request(stack.baseUrl, 'GET', path, { key });

  async function merchantWith(body: Record<string, unknown>) {
    const m = await stack.newMerchantKey('live');
    const res = await stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, { mode: 'live', ...body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return { ...m, accountId: res.body.id as string };
  }

  async function pay(key: string, amount: number, token: string) {
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount, currency: 'EUR', payment_method: { type: 'card', token, ...(token.startsWith('standin_') && { provider_code: 'adyen' }) } },
    });
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    return res.body;
  }

  /** The merchant's successful transactions once there are `count` of them. */
  const recorded = (key: string, count: number, query = '') => eventually(`${count} transactions in the ledger`, async () => {
    const res = await get(key, `/v1/transactions?status=successful${query}`);
    return res.body.data.length >= count ? res.body.data as any[] : undefined;
  });

  const balance = async (key: string) => {
    const [b] = (await get(key, '/v1/balances')).body.data as any[];
    return [b.processed_gross, b.fees, b.processed_net, b.awaiting_provider_settlement] as number[];
  };

  /** Publishes the movement as payments writes it, for the merchant's live project, and waits for its transaction. */
  async function move(m: { merchantId: string; projectId: string; secret: string }, funds: MovedFunds, expected: number) {
    const scope = { mode: 'live', merchantId: m.merchantId, projectId: m.projectId };
    await publishAll(stack.testBus.bus, stack.testBus.nats!.subjectPrefix, [fundsMoved(scope, funds)]);
    return recorded(m.secret, expected);
  }

  async function write(name: string, text: string): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  }

  /** The settlement's items add up to its figures; returns its detail. */
  async function detailOf(key: string, id: string) {
    const one = (await get(key, `/v1/settlements/${id}`)).body;
    for (const [field, total] of [['amount', 'gross_amount'], ['fee_amount', 'fee_amount'], ['net_amount', 'net_amount']]) {
      assert.equal(one.items.reduce((t: number, i: any) => t + i[field], 0), one[total], `items' ${field} is the settlement's ${total}`);
    }
    return one;
  }

  test('Adyen: withdrawn, reinstated, withdrawn again moves the balance by -(A+F), +A, -A; the report\'s chargeback lines settle them', async () => {
    const m = await merchantWith({
      provider: 'adyen', name: 'Adyen EU', fee_bps: 120, fee_fixed: 10,
      credentials: { api_key: ADYEN_KEY, merchant_account: MERCHANT, hmac_key: randomBytes(32).toString('hex').toUpperCase(), api_base_url: adyen.baseUrl },
    });
    const a = await pay(m.secret, 2500, 'standin_card_a');
    const b = await pay(m.secret, 4000, 'standin_card_b');
    await recorded(m.secret, 2);
    const pspA = a.attempts[0].provider_payment_id;
    const dispute = { disputeId: `dp_${randomBytes(6).toString('hex')}`, paymentId: a.id, providerDisputeId: 'DISPUTEPSP000001' };

    const before = await balance(m.secret);
    await move(m, { ...dispute, kind: 'withdrawal', amount: 2500, fee: 200 }, 3);
    const withdrawn = await balance(m.secret);
    await move(m, { ...dispute, kind: 'reinstatement', amount: 2500 }, 4);
    const reinstated = await balance(m.secret);
    await move(m, { ...dispute, kind: 'withdrawal', amount: 2500 }, 5);
    const again = await balance(m.secret);
    const delta = (x: number[], y: number[]) => y.map((v, i) => v - x[i]);
    // processed_gross, fees, processed_net, awaiting_provider_settlement
    assert.deepEqual(delta(before, withdrawn), [-2500, 200, -2700, -2700], 'net and awaiting settlement down by A + F');
    assert.deepEqual(delta(withdrawn, reinstated), [2500, 0, 2500, 2500], 'the amount given back, the fee kept');
    assert.deepEqual(delta(reinstated, again), [-2500, 0, -2500, -2500], 'the second chargeback');

    // GET /v1/transactions lists them and filters by the new types.
    const disputes = (await get(m.secret, '/v1/transactions?type=dispute')).body.data as any[];
    const reversals = (await get(m.secret, '/v1/transactions?type=dispute_reversal')).body.data as any[];
    assert.deepEqual(disputes.map((t) => [t.amount, t.fee_amount, t.net_amount]).sort(), [[-2500, 0, -2500], [-2500, 200, -2700]]);
    assert.deepEqual(reversals.map((t) => [t.amount, t.fee_amount, t.net_amount]), [[2500, 0, 2500]]);
    for (const t of [...disputes, ...reversals]) {
      assert.deepEqual(
        [t.status, t.entity_type, t.entity_id, t.payment_id, t.provider_reference, t.provider_name, t.payment_method],
        ['successful', 'dispute', dispute.disputeId, a.id, 'DISPUTEPSP000001', 'Adyen', 'card'],
      );
    }
    const refused = await get(m.secret, '/v1/transactions?type=chargeback');
    assert.deepEqual([refused.status, refused.body.error.param], [422, 'type'], JSON.stringify(refused.body));

    // A chargeback of a payment whose dispute the ledger has not booked refuses the report, and nothing is written.
    const base: ReportLine = { 'Company Account': 'AcmeCompany', 'Merchant Account': MERCHANT, TimeZone: 'CET', 'Batch Number': '21' };
    const chargebackOf = (psp: string, ref: string, type: string, at: string, gross: string, commission = ''): ReportLine => {
      const debit = type !== 'ChargebackReversed';
      const net = (Number(gross) + Number(commission || 0)).toFixed(2);
      return {
        ...base, 'Psp Reference': psp, 'Payment Method': 'visa', 'Creation Date': at, Type: type, 'Modification Reference': ref,
        'Gross Currency': 'EUR', 'Exchange Rate': '1', 'Net Currency': 'EUR', 'Commission (NC)': commission,
        ...(debit ? { 'Gross Debit (GC)': gross, 'Net Debit (NC)': net } : { 'Gross Credit (GC)': gross, 'Net Credit (NC)': gross }),
      };
    };
    const settled = [
      settledLine({ ...base, 'Creation Date': '2024-05-02 09:15:00' }, {
        psp: pspA, reference: a.attempts[0].id, capturePsp: 'CAPTUREPSP000011', gross: '25.00',
        commission: '', markup: '0.13', scheme: '0.05', interchange: '0.12', net: '24.70',
      }),
      settledLine({ ...base, 'Creation Date': '2024-05-02 10:00:00' }, {
        psp: b.attempts[0].provider_payment_id, reference: b.attempts[0].id, capturePsp: 'CAPTUREPSP000012', gross: '40.00',
        commission: '', markup: '0.20', scheme: '0.08', interchange: '0.30', net: '39.42',
      }),
    ];
    const unknown = await svc('settlement', 'import', '--provider-account', m.accountId, await write('unknown.csv', adyenSettlementReport([
      ...settled, chargebackOf(b.attempts[0].provider_payment_id, 'DISPUTEPSP000099', 'Chargeback', '2024-05-09 10:00:00', '40.00'),
    ])), '--json');
    assert.equal(unknown.code, 1, unknown.stdout);
    assert.match(JSON.parse(unknown.stdout).error.message, /no dispute withdrawal DISPUTEPSP000099 \/ of payment .* is recorded for this scope yet/);
    assert.deepEqual((await get(m.secret, '/v1/settlements')).body.data, []);

    // The batch with the chargeback, its reversal and the second chargeback. The lines name the
    // chargeback by a modification reference the notifications never showed: they are found by
    // the payment's Psp Reference and their record type.
    const lines: ReportLine[] = [
      ...settled,
      chargebackOf(pspA, 'CHARGEBACKPSP001', 'Chargeback', '2024-05-09 10:00:00', '25.00', '2.00'),
      chargebackOf(pspA, 'CHARGEBACKPSP002', 'ChargebackReversed', '2024-05-20 10:00:00', '25.00'),
      chargebackOf(pspA, 'CHARGEBACKPSP003', 'SecondChargeback', '2024-05-28 10:00:00', '25.00'),
      { ...base, 'Creation Date': '2024-05-29 05:00:00', Type: 'MerchantPayout', 'Modification Reference': 'TX1', 'Net Currency': 'EUR', 'Net Debit (NC)': '37.12' },
    ];
    const imported = await svc('settlement', 'import', '--provider-account', m.accountId, await write('batch_21.csv', adyenSettlementReport(lines)), '--json');
    assert.equal(imported.code, 0, imported.stdout + imported.stderr);
    assert.equal(JSON.parse(imported.stdout).created, 1);
    const [s] = (await get(m.secret, '/v1/settlements')).body.data as any[];
    assert.deepEqual([s.settlement_reference, s.status, s.gross_amount, s.fee_amount, s.net_amount], ['21', 'settled', 4000, 288, 3712]);
    const detail = await detailOf(m.secret, s.id);
    const ids = (ts: any[]) => ts.map((t) => t.id).sort();
    assert.deepEqual(
      ids(detail.items.filter((i: any) => i.type === 'dispute' || i.type === 'dispute_reversal').map((i: any) => ({ id: i.transaction_id }))),
      ids([...disputes, ...reversals]),
      'the three chargeback lines are the three dispute transactions',
    );
    assert.equal(detail.items.filter((i: any) => i.type === 'adjustment').length, 0, 'no gross difference: each line found its movement');
    const [after] = (await get(m.secret, '/v1/balances')).body.data as any[];
    assert.equal(after.settled_by_providers, 3712);
    assert.equal(after.awaiting_provider_settlement, 0, 'everything the provider moved is in the settled batch');
  });

  test('Stripe: a payout\'s dispute and dispute_reversal balance transactions settle the dispute\'s movements, not costs', async () => {
    const m = await merchantWith({
      provider: 'stripe', name: 'Stripe EU', fee_bps: 140, fee_fixed: 25,
      credentials: { secret_key: STRIPE_KEY, webhook_secret: 'whsec_live_standin', api_base_url: stripe.baseUrl },
    });
    const a = await pay(m.secret, 3000, 'pm_card_visa');
    await recorded(m.secret, 1);
    const pi = a.attempts[0].provider_payment_id as string;
    const { dispute: dp } = stripe.openDispute(pi);
    await move(m, { disputeId: `dp_${randomBytes(6).toString('hex')}`, paymentId: a.id, providerDisputeId: dp.id, kind: 'withdrawal', amount: 3000, fee: 1500 }, 2);
    stripe.decideDispute(dp.id, 'won');
    const [withdrawal] = (await get(m.secret, '/v1/transactions?type=dispute')).body.data as any[];
    await move(m, { disputeId: withdrawal.entity_id, paymentId: a.id, providerDisputeId: dp.id, kind: 'reinstatement', amount: 3000 }, 3);
    const payout = stripe.payOut('eur');
    assert.equal(payout.amount, 3000 - 67 - 3000 - 1500 + 3000);

    const sync = await svc('settlement', 'sync', '--provider-account', m.accountId, '--json');
    assert.equal(sync.code, 0, sync.stdout + sync.stderr);
    const [s] = (await get(m.secret, '/v1/settlements')).body.data as any[];
    assert.deepEqual([s.settlement_reference, s.gross_amount, s.fee_amount, s.net_amount], [payout.id, 3000, 1567, payout.amount]);
    const detail = await detailOf(m.secret, s.id);
    assert.deepEqual(
      detail.items.map((i: any) => [i.type, i.entity_type, i.amount, i.fee_amount, i.provider_reference]).sort(),
      [
        ['dispute', 'dispute', -3000, 1500, dp.id], ['dispute_reversal', 'dispute', 3000, 0, dp.id],
        ['payment', 'payment', 3000, 67, pi],
      ].sort(),
      'the dispute lines settle the dispute\'s transactions: no cost of the batch, no adjustment',
    );
    const [b] = (await get(m.secret, '/v1/balances')).body.data as any[];
    assert.deepEqual([b.processed_net, b.settled_by_providers, b.awaiting_provider_settlement], [payout.amount, payout.amount, 0]);
  });
});
