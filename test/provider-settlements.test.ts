// Settlements of licensed providers, on the real stack: live payments and a refund go
// through the REST gateway to an Adyen account and to a Stripe account (the official SDKs pointed at
// the loopback stand-ins); Adyen's Settlement details report (written in Adyen's documented format)
// is imported with `svc settlement import`, Stripe's payout with `svc settlement sync`. Each becomes
// one settlement through the ledger's ingestion, with settlement.created, figures to the unit and
// balances that agree with the transactions; a second import changes nothing; a malformed report is
// a 422 naming line and column, and nothing is written. A refund the provider accepted and failed
// later (a signed notification) is paid back in a batch (Stripe's refund_failure, Adyen's
// RefundedReversed), which settles the ledger's reversal of it: everything adds up to the unit.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { signedNotification, startAdyenStandIn, type AdyenStandIn, type NotificationItemInput } from './helpers/adyen-stand-in.js';
import { adyenSettlementReport, settledLine, type ReportLine } from './helpers/adyen-settlement-report.js';
import { eventually } from './helpers/eventually.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { deliver, signed, stripeEvent } from './helpers/stripe-events.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';
import { runSvc } from './helpers/svc-cli.js';

const ADYEN_KEY = `AQE_live_standin_${randomBytes(6).toString('hex')}`;
const MERCHANT = 'AcmeECOM';
const STRIPE_KEY = `sk_live_standin_${randomBytes(6).toString('hex')}`;
const STRIPE_WEBHOOK_SECRET = `whsec_${randomBytes(24).toString('base64url')}`;
const HMAC_KEY = randomBytes(32).toString('hex').toUpperCase();

describe('provider settlements into the ledger', () => {
  let stack: TestStack;
  let adyen: AdyenStandIn;
  let stripe: StripeStandIn;
  let dir: string;

  before(async () => {
    adyen = await startAdyenStandIn({ apiKeys: [ADYEN_KEY], merchantAccounts: [MERCHANT] });
    stripe = await startStripeStandIn({ secretKeys: [STRIPE_KEY] });
    stack = await startTestStack({ env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') } });
    dir = join(tmpdir(), `provider-settlements-${randomBytes(4).toString('hex')}`);
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

  /** A live merchant with an "Adyen EU" account at the stand-in (1.20 % + 10). */
  const adyenMerchant = (hmacKey = HMAC_KEY) => merchantWith({
    provider: 'adyen', name: 'Adyen EU', fee_bps: 120, fee_fixed: 10,
    credentials: { api_key: ADYEN_KEY, merchant_account: MERCHANT, hmac_key: hmacKey, api_base_url: adyen.baseUrl },
  });

  /** A 10.00 EUR refund's notification item, as Adyen sends it about the payment it knows as `psp`. */
  const refundItem = (eventCode: string, refund: { id: string; pspReference: string }, psp: string) => ({
    eventCode, pspReference: refund.pspReference, originalReference: psp, merchantAccountCode: MERCHANT,
    merchantReference: refund.id, amount: { value: 1000, currency: 'EUR' }, success: true,
  });

  /** Posts Adyen notification items, signed with HMAC_KEY, to the merchant's account endpoint; 200 expected. */
  async function notifyAdyen(m: { accountId: string }, items: NotificationItemInput[]): Promise<void> {
    const res = await fetch(`${stack.baseUrl}/providers/adyen/webhooks/${m.accountId}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: signedNotification(HMAC_KEY, items, true),
    });
    assert.equal(res.status, 200, await res.text());
  }

  async function pay(key: string, amount: number, token: string) {
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      // The Adyen stand-in's stored ids have no shape of their own: a live one names its issuer.
      key, body: { amount, currency: 'EUR', payment_method: { type: 'card', token, ...(token.startsWith('standin_') && { provider_code: 'adyen' }) } },
    });
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    return res.body;
  }

  async function refund(key: string, paymentId: string, amount: number) {
    const res = await request(stack.baseUrl, 'POST', `/v1/payments/${paymentId}/refund`, { key, body: { amount } });
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    return res.body;
  }

  /** Waits until the ledger has recorded `count` successful movements of the scope. */
  const recorded = (key: string, count: number) => eventually(`${count} transactions in the ledger`, async () => {
    const res = await get(key, '/v1/transactions?status=successful');
    return res.body.data.length >= count ? res.body.data : undefined;
  });

  /** Waits until the ledger has reversed the refund (its adjustment), after the provider failed it. */
  const reversed = (key: string, refundId: string) => eventually('the refund\'s reversal in the ledger', async () => {
    const res = await get(key, '/v1/transactions?status=successful');
    return (res.body.data as any[]).find((t) => t.type === 'adjustment' && t.entity_id === refundId);
  });

  const settlementEvents = async (settlementId: string) => (await stack.query(
    `SELECT count(*)::int AS n FROM ledger.outbox WHERE type = 'settlement.created' AND payload->'data'->'object'->>'id' = $1`,
    [settlementId],
  )).rows[0].n as number;

  async function write(name: string, text: string): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  }

  /** The settlement's items add up to its figures, and the balance agrees with the transactions. */
  async function assertAgrees(key: string, settlement: any) {
    const one = await get(key, `/v1/settlements/${settlement.id}`);
    const items = one.body.items as any[];
    assert.equal(one.body.transaction_count, items.length);
    for (const [field, total] of [['amount', 'gross_amount'], ['fee_amount', 'fee_amount'], ['net_amount', 'net_amount']]) {
      assert.equal(items.reduce((t, i) => t + i[field], 0), one.body[total], `items' ${field} is the settlement's ${total}`);
    }
    const transactions = (await get(key, '/v1/transactions?status=successful')).body.data as any[];
    const [balance] = (await get(key, '/v1/balances')).body.data as any[];
    const moved = transactions.filter((t) => t.type !== 'payout');
    assert.equal(balance.processed_net, moved.reduce((t, x) => t + x.net_amount, 0));
    assert.equal(balance.settled_by_providers, settlement.net_amount);
    const unsettled = moved.filter((t) => t.settlement_id !== settlement.id).reduce((t, x) => t + x.net_amount, 0);
    assert.equal(balance.awaiting_provider_settlement, unsettled);
    return one.body;
  }

  test('Adyen: the Settlement details report imported with svc settlement import becomes one settlement per batch', async () => {
    const m = await adyenMerchant(randomBytes(32).toString('hex').toUpperCase());
    const a = await pay(m.secret, 2500, 'standin_card_a');
    const b = await pay(m.secret, 4000, 'standin_card_b');
    const r = await refund(m.secret, a.id, 1000);
    await recorded(m.secret, 3);
    const pspA = a.attempts[0].provider_payment_id;
    const pspB = b.attempts[0].provider_payment_id;
    assert.equal(adyen.payments.get(pspA)!.reference, a.attempts[0].id, 'our attempt id is Adyen\'s merchant reference');

    const base: ReportLine = { 'Company Account': 'AcmeCompany', 'Merchant Account': MERCHANT, TimeZone: 'CET', 'Batch Number': '7' };
    const lines: ReportLine[] = [
      settledLine({ ...base, 'Creation Date': '2024-05-02 09:15:00' }, {
        psp: pspA, reference: a.attempts[0].id, capturePsp: 'CAPTUREPSP000001', gross: '25.00',
        commission: '', markup: '0.13', scheme: '0.05', interchange: '0.08', net: '24.74',
      }),
      settledLine({ ...base, 'Creation Date': '2024-05-02 10:00:00' }, {
        psp: pspB, reference: b.attempts[0].id, capturePsp: 'CAPTUREPSP000002', gross: '40.00',
        commission: '', markup: '0.20', scheme: '0.08', interchange: '0.12', net: '39.60',
      }),
      {
        ...base, 'Psp Reference': pspA, 'Merchant Reference': a.attempts[0].id, 'Payment Method': 'visa',
        'Creation Date': '2024-05-02 15:30:00', Type: 'Refunded', 'Modification Reference': r.provider_refund_id,
        'Gross Currency': 'EUR', 'Gross Debit (GC)': '10.00', 'Exchange Rate': '1', 'Net Currency': 'EUR', 'Net Debit (NC)': '10.00',
        'Modification Merchant Reference': r.id,
      },
      { ...base, 'Creation Date': '2024-05-03 04:55:40', Type: 'Fee', 'Modification Reference': 'Transaction Fees', 'Net Currency': 'EUR', 'Net Debit (NC)': '0.24' },
      { ...base, 'Creation Date': '2024-05-03 05:00:00', Type: 'MerchantPayout', 'Modification Reference': 'TX9955374471XT', 'Net Currency': 'EUR', 'Net Debit (NC)': '54.10' },
    ];
    const file = await write('settlement_detail_report_batch_7.csv', adyenSettlementReport(lines));

    const first = await svc('settlement', 'import', '--provider-account', m.accountId, file, '--json');
    assert.equal(first.code, 0, first.stderr);
    const imported = JSON.parse(first.stdout);
    assert.equal(imported.created, 1);
    assert.equal(imported.unchanged, 0);

    const list = (await get(m.secret, '/v1/settlements')).body.data as any[];
    assert.equal(list.length, 1);
    const s = list[0];
    assert.equal(s.id, imported.data[0].id);
    assert.deepEqual(
      [s.settlement_reference, s.provider_name, s.settlement_entity, s.currency, s.status, s.gross_amount, s.fee_amount, s.net_amount],
      ['7', 'Adyen', 'AcmeCompany', 'EUR', 'settled', 5500, 90, 5410],
    );
    assert.equal(s.period_start, '2024-05-02T08:15:00.000Z', 'Creation Date in CET (UTC+1)');
    assert.equal(s.settled_at, '2024-05-03T04:00:00.000Z', 'the MerchantPayout line');
    const detail = await assertAgrees(m.secret, s);
    const byEntity = Object.fromEntries(detail.items.map((i: any) => [i.entity_id, i]));
    assert.equal(byEntity[a.id].amount, 2500);
    assert.equal(byEntity[b.id].amount, 4000);
    assert.equal(byEntity[r.id].amount, -1000);
    // The account's agreed price (40 + 58) was above Adyen's costs and fee (26 + 40 + 24): the difference is a fee transaction.
    assert.deepEqual(detail.items.filter((i: any) => i.type === 'fee').map((i: any) => i.fee_amount), [-8]);
    assert.equal(await settlementEvents(s.id), 1);

    const again = await svc('settlement', 'import', '--provider-account', m.accountId, file, '--json');
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual([JSON.parse(again.stdout).created, JSON.parse(again.stdout).unchanged], [0, 1]);
    assert.equal((await get(m.secret, '/v1/settlements')).body.data.length, 1);
    assert.equal(await settlementEvents(s.id), 1, 'settlement.created once');
    const human = await svc('settlement', 'import', '--provider-account', m.accountId, file);
    assert.match(human.stdout, /0 new, 1 unchanged/);
  });

  test('Adyen: a malformed report is 422 naming line and column, and nothing is written', async () => {
    const m = await adyenMerchant(randomBytes(32).toString('hex').toUpperCase());
    const a = await pay(m.secret, 2500, 'standin_card_a');
    await recorded(m.secret, 1);
    const base: ReportLine = { 'Company Account': 'AcmeCompany', 'Merchant Account': MERCHANT, TimeZone: 'CET', 'Batch Number': '8', 'Creation Date': '2024-05-02 09:15:00' };
    const good = settledLine(base, {
      psp: a.attempts[0].provider_payment_id, reference: a.attempts[0].id, capturePsp: 'CAPTUREPSP000003', gross: '25.00',
      commission: '0.30', markup: '', scheme: '', interchange: '', net: '24.70',
    });
    const bad = adyenSettlementReport([good, { ...good, 'Batch Number': '9', 'Gross Credit (GC)': '25,00' }]);

    const cli = await svc('settlement', 'import', '--provider-account', m.accountId, await write('bad.csv', bad), '--json');
    assert.equal(cli.code, 1);
    const error = JSON.parse(cli.stdout).error;
    assert.equal(error.code, 'validation_error');
    assert.equal(error.param, 'report');
    assert.match(error.message, /^line 3, column "Gross Credit \(GC\)": "25,00" is not an amount in EUR/);

    const post = (text: string) => fetch(`${stack.baseUrl}/manage/v1/provider-accounts/${m.accountId}/settlement-reports`, {
      method: 'POST', headers: { authorization: `Bearer ${stack.operatorToken}`, 'content-type': 'text/csv' }, body: text,
    });
    const foreign = await post(adyenSettlementReport([{ ...good, 'Merchant Account': 'OtherECOM' }]));
    assert.equal(foreign.status, 422);
    assert.match((await foreign.json() as any).error.message, /^line 2, column "Merchant Account"/);
    const manual = await post(adyenSettlementReport([good, { ...good, Type: 'ManualCorrected' }]));
    assert.equal(manual.status, 422);
    assert.match((await manual.json() as any).error.message, /^line 3, column "Type": ManualCorrected records are not supported/);
    // A chargeback debits: one that credits is malformed (test/dispute-settlements.test.ts imports real ones).
    const chargeback = await post(adyenSettlementReport([good, { ...good, Type: 'Chargeback' }]));
    assert.equal(chargeback.status, 422);
    assert.match((await chargeback.json() as any).error.message, /^line 3, column "Gross Debit \(GC\)": A Chargeback record debits/);
    const header = await post('Company Account,Merchant Account\r\nAcme,AcmeECOM\r\n');
    assert.equal(header.status, 422);
    assert.match((await header.json() as any).error.message, /^line 1, column "Psp Reference": The header has no/);
    // A line naming a payment the ledger never recorded refuses the whole file, the good batch too.
    const unknown = await post(adyenSettlementReport([good, { ...good, 'Batch Number': '9', 'Psp Reference': 'UNKNOWNPSP000001', 'Merchant Reference': 'att_unknown' }]));
    assert.equal(unknown.status, 422);
    assert.match((await unknown.json() as any).error.message, /UNKNOWNPSP000001/);

    assert.deepEqual((await get(m.secret, '/v1/settlements')).body.data, []);
    const ok = await post(adyenSettlementReport([good]));
    assert.equal(ok.status, 200);
    assert.equal((await ok.json() as any).created, 1);
  });

  test('Stripe: svc settlement sync makes one settlement per payout from its balance transactions', async () => {
    const m = await merchantWith({
      provider: 'stripe', name: 'Stripe EU', fee_bps: 140, fee_fixed: 25,
      credentials: { secret_key: STRIPE_KEY, webhook_secret: 'whsec_live_standin', api_base_url: stripe.baseUrl },
    });
    const a = await pay(m.secret, 2500, 'pm_card_visa');
    const b = await pay(m.secret, 3000, 'pm_card_visa');
    const r = await refund(m.secret, a.id, 500);
    await recorded(m.secret, 3);
    const payout = stripe.payOut('eur');
    assert.equal(payout.amount, 2500 - 60 + 3000 - 67 - 500);

    const first = await svc('settlement', 'sync', '--provider-account', m.accountId, '--json');
    assert.equal(first.code, 0, first.stderr);
    assert.equal(JSON.parse(first.stdout).created, 1);
    const balanceRequests = stripe.requests.filter((q) => q.path === '/v1/balance_transactions');
    assert.equal(balanceRequests[0].query.get('payout'), payout.id);
    assert.ok([...balanceRequests[0].query.entries()].some(([k, v]) => k.startsWith('expand') && v === 'data.source'));

    const [s] = (await get(m.secret, '/v1/settlements')).body.data as any[];
    assert.deepEqual(
      [s.settlement_reference, s.provider_name, s.status, s.gross_amount, s.fee_amount, s.net_amount],
      [payout.id, 'Stripe', 'settled', 5000, 127, payout.amount],
    );
    const detail = await assertAgrees(m.secret, s);
    assert.deepEqual(detail.items.map((i: any) => i.entity_id).sort(), [a.id, b.id, r.id].sort());
    assert.equal(await settlementEvents(s.id), 1);

    const again = await svc('settlement', 'sync', '--provider-account', m.accountId, '--json');
    assert.deepEqual([JSON.parse(again.stdout).created, JSON.parse(again.stdout).unchanged], [0, 1]);
    assert.equal((await get(m.secret, '/v1/settlements')).body.data.length, 1);
    // Adyen's report is not Stripe's: the upload names the other way.
    const wrong = await fetch(`${stack.baseUrl}/manage/v1/provider-accounts/${m.accountId}/settlement-reports`, {
      method: 'POST', headers: { authorization: `Bearer ${stack.operatorToken}`, 'content-type': 'text/csv' }, body: 'a,b\r\n',
    });
    assert.equal(wrong.status, 422);
    assert.match((await wrong.json() as any).error.message, /svc settlement sync/);
  });
  test('Stripe: a refund failed after acceptance is paid back by refund_failure in the payout, settling its reversal', async (t) => {
    // A Stripe of its own: a sync lists every payout of the Stripe account, the other test's too.
    const own = await startStripeStandIn({ secretKeys: [STRIPE_KEY] });
    t.after(() => own.close());
    const m = await merchantWith({
      provider: 'stripe', name: 'Stripe EU', fee_bps: 140, fee_fixed: 25,
      credentials: { secret_key: STRIPE_KEY, webhook_secret: STRIPE_WEBHOOK_SECRET, api_base_url: own.baseUrl },
    });
    const a = await pay(m.secret, 2500, 'pm_card_visa');
    const r = await refund(m.secret, a.id, 1000);
    const failed = own.failRefund(r.provider_refund_id);
    const told = await deliver(stack.baseUrl, m.accountId, signed(stripeEvent('charge.refund.updated', failed), STRIPE_WEBHOOK_SECRET));
    assert.equal(told.status, 200, JSON.stringify(told.body));
    assert.equal((await get(m.secret, `/v1/refunds/${r.id}`)).body.status, 'failed');
    const adjustment = await reversed(m.secret, r.id);
    assert.equal(adjustment.amount, 1000);
    const payout = own.payOut('eur');
    assert.equal(payout.amount, 2500 - 60 - 1000 + 1000, 'the charge, the refund and the refund_failure');

    const sync = await svc('settlement', 'sync', '--provider-account', m.accountId, '--json');
    assert.equal(sync.code, 0, sync.stdout + sync.stderr);
    assert.equal(JSON.parse(sync.stdout).created, 1);
    const [s] = (await get(m.secret, '/v1/settlements')).body.data as any[];
    assert.deepEqual(
      [s.settlement_reference, s.status, s.gross_amount, s.fee_amount, s.net_amount, s.transaction_count],
      [payout.id, 'settled', 2500, 60, payout.amount, 3],
    );
    const detail = await assertAgrees(m.secret, s);
    assert.deepEqual(
      detail.items.map((i: any) => [i.type, i.entity_id, i.amount, i.fee_amount, i.net_amount]).sort(),
      [['adjustment', r.id, 1000, 0, 1000], ['payment', a.id, 2500, 60, 2440], ['refund', r.id, -1000, 0, -1000]].sort(),
      'the refund_failure line settles the adjustment, not a cost of the batch',
    );
    const [balance] = (await get(m.secret, '/v1/balances')).body.data as any[];
    assert.deepEqual(
      [balance.processed_gross, balance.fees, balance.processed_net, balance.settled_by_providers, balance.awaiting_provider_settlement],
      [2500, 60, 2440, 2440, 0],
    );
  });

  test('Adyen: a REFUNDED_REVERSED notification after a successful refund reverses it once, saying why; a replay or a late REFUND changes nothing', async () => {
    const m = await adyenMerchant();
    const a = await pay(m.secret, 2500, 'standin_card_a');
    const r = await refund(m.secret, a.id, 1000);
    const item = (eventCode: string) =>
      refundItem(eventCode, { id: r.id, pspReference: r.provider_refund_id }, a.attempts[0].provider_payment_id);
    await notifyAdyen(m, [item('REFUNDED_REVERSED')]);
    await reversed(m.secret, r.id);
    const now = (await get(m.secret, `/v1/refunds/${r.id}`)).body;
    assert.deepEqual([now.status, now.failure.code], ['failed', 'refund_failed']);
    assert.match(now.failure.message, /customer's bank returned the refunded funds \(Adyen REFUNDED_REVERSED\)/);
    const payment = (await get(m.secret, `/v1/payments/${a.id}`)).body;
    assert.deepEqual([payment.status, payment.captured_amount, payment.refunded_amount], ['successful', 2500, 0]);

    // Adyen's retry of the same item, and a late REFUND of the refund: nothing moves back or twice.
    await notifyAdyen(m, [item('REFUNDED_REVERSED')]);
    await notifyAdyen(m, [item('REFUND')]);
    const events = async () => (await stack.query(
      `SELECT type FROM payments.outbox WHERE payload->'data'->'object'->>'id' = $1 AND type NOT LIKE 'internal.%' ORDER BY seq`, [r.id],
    )).rows.map((row) => row.type as string);
    assert.deepEqual(await events(), ['refund.successful', 'refund.failed']);
    assert.equal((await get(m.secret, `/v1/refunds/${r.id}`)).body.status, 'failed');
    assert.equal((await get(m.secret, `/v1/payments/${a.id}`)).body.refunded_amount, 0);
    const transactions = (await recorded(m.secret, 3)) as any[];
    assert.deepEqual(
      transactions.filter((t) => t.entity_id === r.id).map((t) => [t.type, t.net_amount, t.failure_code ?? null]).sort(),
      [['adjustment', 1000, 'refund_failed'], ['refund', -1000, null]],
    );
  });

  test('Adyen: a REFUNDED_REVERSED for a refund whose answer was lost settles it as accepted, then reverses it', async () => {
    const m = await adyenMerchant();
    const a = await pay(m.secret, 2500, 'standin_card_a');
    // Adyen makes the refund and its answer comes after the provider call's deadline (10 s).
    adyen.slowRefunds = true;
    adyen.slowAnswerMs = 11_000;
    let lost;
    try {
      lost = await request(stack.baseUrl, 'POST', `/v1/payments/${a.id}/refund`, { key: m.secret, body: { amount: 1000 } });
    } finally {
      adyen.slowRefunds = false;
      adyen.slowAnswerMs = 3_000;
    }
    assert.equal(lost.body.status, 'processing', JSON.stringify(lost.body));
    const made = [...adyen.modifications.values()].find((x) => x.reference === lost.body.id)!;
    await notifyAdyen(m, [refundItem(
      'REFUNDED_REVERSED', { id: lost.body.id, pspReference: String(made.pspReference) }, a.attempts[0].provider_payment_id,
    )]);
    await reversed(m.secret, lost.body.id);
    const now = (await get(m.secret, `/v1/refunds/${lost.body.id}`)).body;
    assert.deepEqual([now.status, now.failure.code, now.provider_refund_id], ['failed', 'refund_failed', made.pspReference]);
    assert.deepEqual((await get(m.secret, `/v1/payments/${a.id}`)).body.refunded_amount, 0);
    const events = (await stack.query(
      `SELECT type FROM payments.outbox WHERE payload->'data'->'object'->>'id' = $1 AND type NOT LIKE 'internal.%' ORDER BY seq`, [lost.body.id],
    )).rows.map((row) => row.type as string);
    assert.deepEqual(events, ['refund.successful', 'refund.failed']);
    // Beside them, the ledger's internal refund.settled: accepted, then failed after acceptance.
    const settled = (await stack.query(
      `SELECT payload->'data'->'object' AS o FROM payments.outbox
       WHERE payload->'data'->'object'->>'id' = $1 AND type = 'internal.refund.settled' ORDER BY seq`, [lost.body.id],
    )).rows.map((row) => [row.o.status, row.o.after_acceptance]);
    assert.deepEqual(settled, [['successful', false], ['failed', true]]);
    const transactions = (await recorded(m.secret, 3)) as any[];
    assert.deepEqual(
      transactions.filter((t) => t.entity_id === lost.body.id).map((t) => [t.type, t.net_amount]).sort(),
      [['adjustment', 1000], ['refund', -1000]],
    );
  });

  test('Adyen: Refunded and RefundedReversed lines settle a refund and its reversal after a REFUND_FAILED notification', async () => {
    const m = await adyenMerchant();
    const a = await pay(m.secret, 2500, 'standin_card_a');
    const r = await refund(m.secret, a.id, 1000);
    const psp = a.attempts[0].provider_payment_id;
    await notifyAdyen(m, [refundItem('REFUND_FAILED', { id: r.id, pspReference: r.provider_refund_id }, psp)]);
    await reversed(m.secret, r.id);

    const base: ReportLine = { 'Company Account': 'AcmeCompany', 'Merchant Account': MERCHANT, TimeZone: 'CET', 'Batch Number': '21' };
    const refundLine = (type: string, at: string, column: 'Debit' | 'Credit'): ReportLine => ({
      ...base, 'Psp Reference': psp, 'Merchant Reference': a.attempts[0].id, 'Payment Method': 'visa', 'Creation Date': at,
      Type: type, 'Modification Reference': r.provider_refund_id, 'Gross Currency': 'EUR', [`Gross ${column} (GC)`]: '10.00',
      'Exchange Rate': '1', 'Net Currency': 'EUR', [`Net ${column} (NC)`]: '10.00', 'Modification Merchant Reference': r.id,
    });
    const file = await write('settlement_detail_report_batch_21.csv', adyenSettlementReport([
      settledLine({ ...base, 'Creation Date': '2024-06-03 09:00:00' }, {
        psp, reference: a.attempts[0].id, capturePsp: 'CAPTUREPSP000021', gross: '25.00',
        commission: '0.40', markup: '', scheme: '', interchange: '', net: '24.60',
      }),
      refundLine('Refunded', '2024-06-03 12:00:00', 'Debit'),
      refundLine('RefundedReversed', '2024-06-05 08:00:00', 'Credit'),
      { ...base, 'Creation Date': '2024-06-06 05:00:00', Type: 'MerchantPayout', 'Modification Reference': 'TX21XT', 'Net Currency': 'EUR', 'Net Debit (NC)': '24.60' },
    ]));

    const imported = await svc('settlement', 'import', '--provider-account', m.accountId, file, '--json');
    assert.equal(imported.code, 0, imported.stdout + imported.stderr);
    assert.equal(JSON.parse(imported.stdout).created, 1);
    const [s] = (await get(m.secret, '/v1/settlements')).body.data as any[];
    assert.deepEqual(
      [s.settlement_reference, s.status, s.gross_amount, s.fee_amount, s.net_amount, s.transaction_count],
      ['21', 'settled', 2500, 40, 2460, 3],
    );
    const detail = await assertAgrees(m.secret, s);
    assert.deepEqual(
      detail.items.map((i: any) => [i.type, i.entity_id, i.amount, i.fee_amount, i.net_amount]).sort(),
      [['adjustment', r.id, 1000, 0, 1000], ['payment', a.id, 2500, 40, 2460], ['refund', r.id, -1000, 0, -1000]].sort(),
    );
    const [balance] = (await get(m.secret, '/v1/balances')).body.data as any[];
    assert.deepEqual(
      [balance.processed_gross, balance.fees, balance.processed_net, balance.settled_by_providers, balance.awaiting_provider_settlement],
      [2500, 40, 2460, 2460, 0],
    );
  });
});
