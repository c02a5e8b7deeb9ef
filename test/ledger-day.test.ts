import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConnectError, createClient } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { LedgerService } from '../proto/gen/svc/ledger/v1/ledger_pb.js';
import { PayoutsService } from '../proto/gen/svc/payouts/v1/payouts_pb.js';
import { createLedgerConsumer } from '../services/ledger/index.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { createLogger } from '../services/platform/logger.js';
import { createPeerTransport } from '../services/platform/rpc.js';
import { type EventEnvelope } from '../services/contract/index.js';
import { ISO_TIMESTAMP } from './helpers/api-assertions.js';
import { eventually } from './helpers/eventually.js';
import { offsetClock, request, startTestStack, type TestStack } from './helpers/stack.js';

// The ledger over a day of mixed activity through the HTTP gateway, after which
// transactions, balances and settlements agree to the unit with what the payments, refunds and
// payouts APIs said, the journal balances per currency, and replaying every event changes nothing.

const DAY = 86_400_000;
const TRANSACTION_FIELDS = [
  'id', 'type', 'status', 'entity_type', 'entity_id', 'payment_id', 'amount', 'currency', 'fee_amount', 'net_amount',
  'provider_name', 'provider_reference', 'payment_method', 'country', 'processing_time_ms', 'failure_code',
  'settlement_id', 'occurred_at',
];
const BALANCE_FIELDS = [
  'currency', 'processed_gross', 'fees', 'processed_net', 'settled_by_providers', 'awaiting_provider_settlement',
  'payouts_sent', 'note',
];
const SETTLEMENT_FIELDS = [
  'id', 'provider_name', 'settlement_entity', 'settlement_reference', 'currency', 'gross_amount', 'fee_amount',
  'net_amount', 'transaction_count', 'period_start', 'period_end', 'status', 'settled_at',
];

/** Real time plus an offset the test moves: settlement days and payout holds pass in an instant. */
const clock = offsetClock();

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
/** Demo Beta's price, the one fee formula (services/contract/fees.ts): 20 + 2.5%, rounded down. */
const betaFee = (amount: number) => 20 + Math.floor((amount * 250) / 10_000);

describe('a day of payments, refunds, payouts and settlements: the ledger agrees to the unit', () => {
  let stack: TestStack;
  let key: string;
  let otherKey: string;
  let ledgerRpc: ReturnType<typeof createClient<typeof LedgerService>>;
  let payoutsRpc: ReturnType<typeof createClient<typeof PayoutsService>>;
  let ledgerPool: Pool;

  // What the payments, refunds and payouts APIs answered, by id.
  const payments = new Map<string, any>();
  const refunds = new Map<string, any>();
  const payouts = new Map<string, any>();
  let secondSettlementAt: Date;

  before(async () => {
    stack = await startTestStack({ clock });
    key = (await stack.newMerchantKey('test')).secret;
    otherKey = (await stack.newMerchantKey('test')).secret;
    ledgerRpc = createClient(LedgerService, createPeerTransport(stack.serviceUrls.ledger, stack.internalToken));
    payoutsRpc = createClient(PayoutsService, createPeerTransport(stack.serviceUrls.payouts, stack.internalToken));
    ledgerPool = createPool(stack.db.url, 'ledger', 8);
  });
  after(async () => {
    await ledgerPool?.end();
    await stack?.close();
  });

  const get = (path: string, k = key) => request(stack.baseUrl, 'GET', path, { key: k });
  const post = (path: string, body?: unknown, k = key) => request(stack.baseUrl, 'POST', path, { key: k, body });

  async function pay(body: Record<string, unknown>, k = key): Promise<any> {
    const res = await post('/v1/payments', { currency: 'EUR', payment_method: 'card', ...body }, k);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    if (k === key) payments.set(res.body.id, res.body);
    return res.body;
  }
  async function refund(payment: any, body: Record<string, unknown>): Promise<any> {
    const res = await post(`/v1/payments/${payment.id}/refund`, body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    refunds.set(res.body.id, res.body);
    return res.body;
  }
  async function payout(body: Record<string, unknown>): Promise<any> {
    const res = await post('/v1/payouts', {
      currency: 'EUR', destination: { type: 'bank_account', token: 'ben_day_1', display: '•••• 3000' }, ...body,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    payouts.set(res.body.id, res.body);
    return res.body;
  }

  /** Every transaction of the key, newest first, gathered page by page. */
  async function allTransactions(k = key, query = ''): Promise<any[]> {
    const out: any[] = [];
    let cursor: string | undefined;
    do {
      const res = await get(`/v1/transactions?limit=7${query}${cursor ? `&cursor=${cursor}` : ''}`, k);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      out.push(...res.body.data);
      cursor = res.body.has_more ? res.body.next_cursor : undefined;
    } while (cursor);
    return out;
  }

  /** The ledger has recorded one transaction per movement the APIs reported (outcomes only). */
  const recorded = (count: number) =>
    eventually(`${count} transactions in the ledger`, async () => {
      const all = await allTransactions();
      return all.filter((t) => t.entity_type !== 'settlement').length === count ? all : undefined;
    });

  async function settlementRun(): Promise<void> {
    clock.offsetMs += DAY + 60_000;
    await ledgerRpc.runSettlementCycle({});
  }

  /** The figures a merchant reads, as one comparable snapshot. */
  async function snapshot(k = key) {
    const settlements = (await get('/v1/settlements', k)).body.data;
    const details = [];
    for (const s of settlements) details.push((await get(`/v1/settlements/${s.id}`, k)).body);
    return { balances: (await get('/v1/balances', k)).body, transactions: await allTransactions(k), settlements: details };
  }

  test('the day: payments with failover and failures, partial and failed refunds, payouts, two settlement runs', async () => {
    const card = await pay({ amount: 12_000 });
    const failover = await pay({ amount: 5000, test_scenario: 'failover' });
    const unavailable = await pay({ amount: 4000, test_scenario: 'unavailable' });
    const recovered = await pay({ amount: 2500, test_scenario: 'timeout_recovered' });
    assert.equal(recovered.attempts.length, 1, 'the provider confirmed the late approval: charged once');
    const declined = await pay({ amount: 3000, test_scenario: 'hard_decline' });
    const allFail = await pay({ amount: 2000, test_scenario: 'all_fail' });
    const wallet = await pay({ amount: 8000, payment_method: 'wallet', country: 'DE' });
    const usd = await pay({ amount: 7000, currency: 'USD' });
    // Fees and nets (docs/ledger.md): a partial capture is charged on what it captured; a released
    // authorization is charged nothing.
    const manual = await pay({ amount: 5000, capture_method: 'manual' });
    assert.equal(manual.route.provider.code, 'demo_beta');
    assert.equal(manual.fee.amount, betaFee(5000), 'the quote for the authorization: 145');
    const captured = await post(`/v1/payments/${manual.id}/capture`, { amount: 3000 });
    assert.equal(captured.status, 200, JSON.stringify(captured.body));
    assert.deepEqual([captured.body.captured_amount, captured.body.fee.amount], [3000, betaFee(3000)], 'charged 95 on 3000');
    payments.set(manual.id, captured.body);
    const held = await pay({ amount: 4000, capture_method: 'manual' });
    assert.equal(held.fee.amount, betaFee(4000), 'quoted while held: 120');
    const released = await post(`/v1/payments/${held.id}/cancel`, {});
    assert.equal(released.status, 200);
    assert.equal(released.body.fee.amount, 0, 'a cancelled authorization shows no fee');
    assert.equal(released.body.attempts[0].fee_amount, 0);
    assert.equal(failover.attempts.length, 2);
    assert.equal(unavailable.attempts.length, 2);
    assert.equal(declined.status, 'failed');
    assert.equal(allFail.status, 'failed');
    assert.equal(allFail.attempts.length, 3);
    await pay({ amount: 10_000 }, otherKey);

    await refund(card, { amount: 2500, reason: 'returned item' });
    assert.equal((await refund(card, { amount: 1000, test_scenario: 'hard_decline' })).status, 'failed');
    assert.equal((await refund(failover, { test_scenario: 'technical_error' })).status, 'failed');
    await refund(usd, {});
    await refund(wallet, { amount: 3000 });

    // Successful payments 7, failed 2 (the cancelled authorization moved no money); refunds 5.
    await recorded(14);
    await settlementRun();

    // Payouts spend what was settled (test mode does not refuse beyond it; payouts.test.ts proves
    // the live rule).
    const eur = (await get('/v1/balances')).body.data.find((b: any) => b.currency === 'EUR');
    assert.ok(eur.settled_by_providers > 20_000, JSON.stringify(eur));
    const sent = await payout({ amount: 10_000, reference: 'supplier-1' });
    await payout({ amount: 2000, test_scenario: 'hard_decline', destination: { type: 'wallet', token: 'wal_1', display: 'ada@…' } });
    await payout({ amount: 1500, test_scenario: 'technical_error' });
    const cancelled = await payout({ amount: 3000 });
    await payout({ amount: 1000, test_scenario: 'timeout', destination: { type: 'card_token', token: 'tok_1', display: '•••• 4242' } });
    const c = await post(`/v1/payouts/${cancelled.id}/cancel`);
    assert.equal(c.body.status, 'cancelled');
    clock.offsetMs += 61_000;
    await payoutsRpc.dispatchPayouts({});
    // The part's own dispatcher may have taken some of them a moment earlier: wait for its outcomes.
    await eventually('payout outcomes', async () => {
      for (const id of payouts.keys()) payouts.set(id, (await get(`/v1/payouts/${id}`)).body);
      return [...payouts.values()].some((p) => p.status === 'pending') ? undefined : true;
    });
    assert.deepEqual([...payouts.values()].map((p) => p.status), ['successful', 'failed', 'failed', 'cancelled', 'processing']);
    assert.equal(payouts.get(sent.id).fee.amount, 20);

    // After the first settlement: a refund of a settled payment and a new payment, settled the next day;
    // then one more payment that stays awaiting settlement.
    await refund(card, { amount: 1500 });
    await pay({ amount: 9000 });
    await recorded(14 + 3 + 2);
    await settlementRun();
    secondSettlementAt = clock.now();
    await pay({ amount: 3000, country: 'FR' });
    for (const id of payments.keys()) payments.set(id, (await get(`/v1/payments/${id}`)).body);
    await recorded(14 + 3 + 2 + 1);
  });

  test('every movement is one transaction with the contract\'s fields; failed ones too; payout outcomes only', async () => {
    const all = await allTransactions();
    const single = (await get('/v1/transactions?limit=200')).body;
    assert.deepEqual(all, single.data, 'pages join up into the one list');
    assert.equal(single.has_more, false);
    assert.equal(single.next_cursor, null);
    for (let i = 1; i < all.length; i++) assert.ok(all[i - 1].id > all[i].id, 'newest first');
    for (const t of all) {
      assert.deepEqual(Object.keys(t), TRANSACTION_FIELDS);
      assert.match(t.id, /^txn_/);
      assert.match(t.occurred_at, ISO_TIMESTAMP);
      // What moved: amount less fee, or nothing at all for a failed movement.
      assert.equal(t.net_amount, t.status === 'failed' ? 0 : t.amount - t.fee_amount, JSON.stringify(t));
      if (t.status === 'failed') assert.equal(t.fee_amount, 0, 'a failed movement is charged nothing');
    }
    const of = (entityId: string) => all.filter((t) => t.entity_id === entityId);

    for (const p of payments.values()) {
      const txns = of(p.id);
      if (p.status === 'cancelled') {
        assert.equal(txns.length, 0, 'an authorization released moves no money');
        continue;
      }
      assert.equal(txns.length, 1, p.id);
      const [t] = txns;
      assert.equal(t.type, 'payment');
      assert.equal(t.entity_type, 'payment');
      assert.equal(t.payment_id, p.id);
      assert.equal(t.currency, p.currency);
      assert.equal(t.payment_method, p.payment_method.type);
      assert.equal(t.country, p.country);
      assert.equal(t.provider_name, p.route.provider?.name ?? null);
      if (p.status === 'failed') {
        assert.equal(t.status, 'failed');
        assert.equal(t.amount, p.amount, 'what was attempted, for monitoring');
        assert.deepEqual([t.fee_amount, t.net_amount], [0, 0], 'no money moved');
        assert.equal(p.fee.amount, 0);
        assert.equal(t.failure_code, p.failure.code);
        assert.equal(t.settlement_id, null);
      } else {
        assert.equal(t.status, 'successful');
        assert.equal(t.amount, p.captured_amount);
        assert.equal(t.fee_amount, p.fee.amount);
        assert.equal(t.net_amount, p.captured_amount - p.fee.amount);
        assert.equal(t.provider_reference, p.route.provider_payment_id);
        assert.equal(t.processing_time_ms, p.processing_time_ms);
        assert.equal(t.failure_code, null);
      }
    }
    for (const r of refunds.values()) {
      const [t, ...more] = of(r.id);
      assert.equal(more.length, 0);
      const payment = payments.get(r.payment_id);
      assert.equal(t.type, 'refund');
      assert.equal(t.payment_id, r.payment_id);
      assert.equal(t.amount, -r.amount, 'negative for refunds');
      assert.equal(t.fee_amount, 0);
      assert.equal(t.net_amount, r.status === 'failed' ? 0 : -r.amount);
      assert.equal(t.status, r.status);
      assert.equal(t.failure_code, r.failure?.code ?? null);
      assert.equal(t.provider_name, payment.route.provider.name, 'through the provider that took the payment');
      assert.equal(t.provider_reference, r.provider_refund_id);
    }
    for (const p of payouts.values()) {
      const txns = of(p.id);
      if (p.status === 'cancelled' || p.status === 'processing') {
        assert.equal(txns.length, 0, `a ${p.status} payout has no outcome yet`);
        continue;
      }
      const [t] = txns;
      assert.equal(t.type, 'payout');
      assert.equal(t.status, p.status);
      assert.equal(t.amount, -p.amount, 'negative for payouts');
      assert.equal(t.fee_amount, p.fee.amount);
      assert.equal(t.net_amount, p.status === 'failed' ? 0 : -(p.amount + p.fee.amount));
      assert.equal(t.payment_id, null);
      assert.equal(t.provider_name, p.route.provider.name);
      assert.equal(t.provider_reference, p.route.provider_payout_id);
      assert.equal(t.failure_code, p.failure?.code ?? null);
    }

    // Filters.
    const failedRefunds = (await get('/v1/transactions?type=refund&status=failed')).body.data;
    assert.deepEqual(failedRefunds.map((t: any) => t.entity_id).sort(),
      [...refunds.values()].filter((r) => r.status === 'failed').map((r) => r.id).sort());
    const usd = (await get('/v1/transactions?currency=usd')).body.data;
    assert.ok(usd.length >= 2 && usd.every((t: any) => t.currency === 'USD'));
    const gamma = (await get('/v1/transactions?provider_account_id=pac_demo_gamma&type=payment')).body.data;
    assert.deepEqual(gamma.map((t: any) => t.entity_id).sort(),
      [...payments.values()].filter((p) => p.captured_amount > 0 && p.route.provider?.code === 'demo_gamma').map((p) => p.id).sort());
    const late = (await get(`/v1/transactions?from=${secondSettlementAt.toISOString()}`)).body.data;
    assert.deepEqual(late.map((t: any) => t.country), ['FR'], 'from is inclusive of the window, by occurred_at');
    const early = (await get(`/v1/transactions?to=${secondSettlementAt.toISOString()}`)).body.data;
    assert.equal(early.length + late.length, all.length);
    assert.equal((await get('/v1/transactions?status=lost')).status, 422);
    assert.equal((await get('/v1/transactions?type=chargeback')).status, 422);

    // The other merchant sees its own payment only, and the fee of its own Demo Beta settlement.
    const others = await allTransactions(otherKey);
    assert.deepEqual(others.map((t) => t.type), ['fee', 'payment']);
    assert.ok(!all.some((t) => others.some((o) => o.id === t.id)));
  });

  test('balances: each figure equals what the payments, refunds, settlements and payouts say, to the unit', async () => {
    const res = await get('/v1/balances');
    assert.equal(res.status, 200);
    assert.equal(res.body.custodian, false);
    const settlements = (await get('/v1/settlements')).body.data;
    const currencies = [...new Set([...payments.values()].map((p) => p.currency))].sort();
    assert.deepEqual(res.body.data.map((b: any) => b.currency), currencies);
    const transactions = await allTransactions();
    const failedTypes = new Set(transactions.filter((t) => t.currency === 'EUR' && t.status === 'failed').map((t) => t.type));
    assert.deepEqual([...failedTypes].sort(), ['payment', 'payout', 'refund'], 'failed movements of each kind to prove the nets with');
    for (const b of res.body.data) {
      assert.deepEqual(Object.keys(b), BALANCE_FIELDS);
      assert.match(b.note, /custodian/);
      const c = b.currency;
      const captured = [...payments.values()].filter((p) => p.currency === c && p.captured_amount > 0);
      const refunded = [...refunds.values()].filter((r) => r.currency === c && r.status === 'successful');
      const settled = settlements.filter((s: any) => s.currency === c && s.status === 'settled');
      const betaBatches = settled.filter((s: any) => s.settlement_entity === 'pac_demo_beta').length;
      const sent = [...payouts.values()].filter((p) => p.currency === c && p.status === 'successful');
      // From the other APIs, independently of the ledger's transactions.
      const gross = sum(captured.map((p) => p.captured_amount)) - sum(refunded.map((r) => r.amount));
      // Every payment's fee, cancelled and failed ones included: they show 0, so nothing is filtered.
      const fees = sum([...payments.values()].filter((p) => p.currency === c).map((p) => p.fee.amount)) + 10 * betaBatches;
      assert.equal(b.processed_gross, gross, `${c} processed_gross`);
      assert.equal(b.fees, fees, `${c} fees`);
      assert.equal(b.processed_net, gross - fees, `${c} processed_net`);
      assert.equal(b.settled_by_providers, sum(settled.map((s: any) => s.net_amount)), `${c} settled_by_providers`);
      assert.equal(b.awaiting_provider_settlement, b.processed_net - b.settled_by_providers, `${c} awaiting`);
      assert.equal(b.payouts_sent, sum(sent.map((p) => p.amount + p.fee.amount)), `${c} payouts_sent`);
      // And from the ledger's own transactions, by the definitions in docs/ledger.md.
      const ok = transactions.filter((t) => t.currency === c && t.status === 'successful');
      const ofType = (...types: string[]) => ok.filter((t) => types.includes(t.type));
      assert.equal(b.processed_gross, sum(ofType('payment', 'refund', 'adjustment').map((t) => t.amount)));
      assert.equal(b.fees, sum(ofType('payment', 'refund', 'fee').map((t) => t.fee_amount)));
      assert.equal(b.payouts_sent, 0 - sum(ofType('payout').map((t) => t.net_amount)));
      assert.equal(b.awaiting_provider_settlement,
        sum(ofType('payment', 'refund', 'fee', 'adjustment').filter((t) => t.settlement_id === null).map((t) => t.net_amount)));
      // Nets add up over every transaction, failed ones included (they moved nothing: net 0).
      const any = transactions.filter((t) => t.currency === c);
      const anyOf = (...types: string[]) => any.filter((t) => types.includes(t.type));
      assert.equal(b.processed_net, sum(anyOf('payment', 'refund', 'fee', 'adjustment').map((t) => t.net_amount)), `${c} sum of nets`);
      assert.equal(b.fees, sum(anyOf('payment', 'refund', 'fee').map((t) => t.fee_amount)), `${c} sum of fees`);
      assert.equal(b.processed_gross - b.fees, b.processed_net);
      assert.equal(b.payouts_sent, 0 - sum(anyOf('payout').map((t) => t.net_amount)), `${c} payouts' nets`);
    }
    const usd = res.body.data.find((b: any) => b.currency === 'USD');
    assert.deepEqual([usd.processed_gross, usd.settled_by_providers, usd.awaiting_provider_settlement], [0, -usd.fees, 0],
      'fully refunded: the provider collected its fees from the merchant');
    const eur = res.body.data.find((b: any) => b.currency === 'EUR');
    const fresh = [...payments.values()].find((p) => p.country === 'FR');
    assert.equal(eur.awaiting_provider_settlement, fresh.amount - fresh.fee.amount, 'only the last payment awaits settlement');

    const other = (await get('/v1/balances', otherKey)).body.data;
    assert.equal(other.length, 1);
    assert.equal(other[0].processed_gross, 10_000);
  });

  test('settlements: batches per provider account and currency, items that add up, transactions linked', async () => {
    const list = await get('/v1/settlements');
    assert.equal(list.status, 200);
    const settlements = list.body.data;
    assert.equal(settlements.length, 4, 'EUR at Demo Beta and Demo Gamma and USD at Demo Beta, then EUR at Demo Beta again');
    const transactions = await allTransactions();
    const linked = new Set<string>();
    for (const s of settlements) {
      assert.deepEqual(Object.keys(s), SETTLEMENT_FIELDS);
      assert.match(s.id, /^stl_/);
      assert.equal(s.status, 'settled');
      assert.match(s.settled_at, ISO_TIMESTAMP);
      assert.ok(s.period_start <= s.period_end);
      assert.equal(s.net_amount, s.gross_amount - s.fee_amount);
      const one = await get(`/v1/settlements/${s.id}`);
      assert.equal(one.status, 200);
      const { items, ...fields } = one.body;
      assert.deepEqual(fields, s);
      assert.equal(items.length, s.transaction_count);
      assert.equal(sum(items.map((i: any) => i.amount)), s.gross_amount);
      assert.equal(sum(items.map((i: any) => i.fee_amount)), s.fee_amount);
      assert.equal(sum(items.map((i: any) => i.net_amount)), s.net_amount);
      for (const i of items) {
        const t = transactions.find((x) => x.id === i.transaction_id);
        assert.equal(t.settlement_id, s.id);
        assert.deepEqual([i.type, i.entity_id, i.amount, i.fee_amount], [t.type, t.entity_id, t.amount, t.fee_amount]);
        linked.add(t.id);
      }
      assert.equal(items.filter((i: any) => i.type === 'fee').length, s.settlement_entity === 'pac_demo_beta' ? 1 : 0);
    }
    for (const t of transactions) {
      if (t.settlement_id) assert.ok(linked.has(t.id), `${t.id} is an item of ${t.settlement_id}`);
      else assert.ok(t.status !== 'successful' || t.type === 'payout' || t.country === 'FR', `${t.id} awaits settlement`);
    }
    const beta = (await get('/v1/settlements?provider_account_id=pac_demo_beta')).body.data;
    assert.equal(beta.length, 3);
    assert.deepEqual((await get('/v1/settlements?status=pending')).body.data, []);
    assert.equal((await get('/v1/settlements?status=paid')).status, 422);
    assert.equal((await get('/v1/settlements/stl_unknown')).status, 404);
    assert.equal((await get(`/v1/settlements/${settlements[0].id}`, otherKey)).status, 404);

    // Each settlement was announced once, serialised like the list.
    const { rows } = await stack.query(`SELECT payload FROM ledger.outbox WHERE type = 'settlement.created'`);
    const mine = rows.map((r) => r.payload as EventEnvelope).filter((e) => settlements.some((s: any) => s.id === e.data.object.id));
    assert.equal(mine.length, settlements.length);
    for (const e of mine) assert.deepEqual(e.data.object, settlements.find((s: any) => s.id === e.data.object.id));
  });

  test('the journal balances: every entry, and every currency of every scope', async () => {
    const entries = await stack.query(
      `SELECT entry_id, sum(amount) AS total FROM ledger.journal_lines GROUP BY entry_id HAVING sum(amount) <> 0`,
    );
    assert.deepEqual(entries.rows, []);
    const scopes = await stack.query(
      `SELECT merchant_id, project_id, mode, currency, sum(amount)::text AS total, count(*)::int AS lines
       FROM ledger.journal_lines GROUP BY 1, 2, 3, 4`,
    );
    assert.ok(scopes.rows.length >= 3);
    for (const r of scopes.rows) assert.equal(r.total, '0', JSON.stringify(r));
    const successful = await stack.query(
      `SELECT count(*)::int AS n FROM ledger.transactions t
       WHERE t.status = 'successful' AND NOT EXISTS (SELECT 1 FROM ledger.journal_entries e WHERE e.transaction_id = t.id)`,
    );
    assert.equal(successful.rows[0].n, 0, 'every successful movement is posted');
    const failed = await stack.query(
      `SELECT count(*)::int AS n FROM ledger.transactions t JOIN ledger.journal_entries e ON e.transaction_id = t.id
       WHERE t.status <> 'successful'`,
    );
    assert.equal(failed.rows[0].n, 0, 'failed movements are not posted');
  });

  test('replaying every event, through the handler and through the bus, changes nothing', async () => {
    const before = await snapshot();
    const beforeOther = await snapshot(otherKey);
    const lines = async () => (await stack.query('SELECT count(*)::int AS n FROM ledger.journal_lines')).rows[0].n;
    const redeliveries = async () =>
      Number((await stack.query('SELECT coalesce(sum(redeliveries), 0) AS n FROM ledger.consumed_events')).rows[0].n);
    const linesBefore = await lines();

    const events: EventEnvelope[] = [];
    for (const schema of ['payments', 'payouts', 'ledger']) {
      const { rows } = await stack.query(`SELECT payload FROM ${schema}.outbox ORDER BY seq`);
      events.push(...rows.map((r) => r.payload as EventEnvelope));
    }
    // Internal money events and, for one version, the public ones (services/ledger/money-events.ts).
    const money = events.filter((e) =>
      /^(payment\.(successful|failed)|refund\.|payout\.(successful|failed)|internal\.(payment\.decided|refund\.settled|payout\.settled))/
        .test(e.type));
    assert.ok(money.length >= 20, `${money.length} money events`);

    // Straight into the consumer's handler, twice, all at once and newest first.
    const handle = createLedgerConsumer({ pool: ledgerPool, clock, logger: createLogger('replay', 'silent'), waitMs: 0 });
    const start = await redeliveries();
    await Promise.all([...events].reverse().map((e) => handle(e)));
    await Promise.all(events.map((e) => handle(e)));
    assert.equal(await redeliveries(), start + 2 * money.length);

    // And through the bus, as a redelivery would arrive: new message ids, the same event ids.
    const prefix = stack.testBus.nats?.subjectPrefix ?? 'svc.events';
    for (const e of events) {
      await stack.testBus.bus.publish({
        subject: `${prefix}.${e.type}`, msgId: `${e.id}.replay`, data: Buffer.from(JSON.stringify(e)),
      });
    }
    await eventually('the ledger consumer to see every replayed event', async () =>
      ((await redeliveries()) === start + 3 * money.length ? true : undefined));

    assert.equal(await lines(), linesBefore);
    assert.deepEqual(await snapshot(), before);
    assert.deepEqual(await snapshot(otherKey), beforeOther);
  });
  test('a real provider\'s report takes the same path: pending then settled, fee and gross differences, idempotent', async () => {
    const merchant = await stack.newMerchantKey('test');
    const k = merchant.secret;
    const scope = { merchantId: merchant.merchantId, projectId: merchant.projectId, mode: 'test' };
    const first = await pay({ amount: 12_000 }, k);
    const second = await pay({ amount: 15_000 }, k);
    const third = await pay({ amount: 5000 }, k);
    const back = await post(`/v1/payments/${first.id}/refund`, { amount: 2000 }, k);
    assert.equal(back.body.status, 'successful');
    await eventually('the movements in the ledger', async () => ((await allTransactions(k)).length === 4 ? true : undefined));
    assert.deepEqual([first, second, third].map((p) => p.route.provider_account_id), ['pac_demo_beta', 'pac_demo_beta', 'pac_demo_beta']);
    const figures = async () => (await get('/v1/balances', k)).body.data[0];
    const start = await figures();

    // The provider charged 10 more on the first payment, settled 10 less of the second, and
    // added an account fee of 25. Items name our ids or its own references.
    const items = [
      { type: 'payment', entityId: first.id, amount: 12_000n, feeAmount: BigInt(first.fee.amount + 10) },
      { type: 'payment', providerReference: second.route.provider_payment_id, amount: 14_990n, feeAmount: BigInt(second.fee.amount) },
      { type: 'refund', entityId: back.body.id, amount: -2000n, feeAmount: 0n },
    ];
    const gross = 24_990n;
    const fee = BigInt(first.fee.amount + 10 + second.fee.amount + 25);
    const report = (status: string, extra: Record<string, unknown> = {}) => ({
      report: {
        scope, providerAccountId: 'pac_demo_beta', providerName: 'Demo Beta', settlementEntity: 'Demo Beta Payments Ltd',
        reference: 'BETA-2026-03-01', currency: 'EUR', status,
        periodStart: timestampFromDate(new Date(Date.now() - DAY)), periodEnd: timestampFromDate(new Date()),
        items, fees: [{ amount: 25n, description: 'Monthly account fee' }], grossAmount: gross, feeAmount: fee, netAmount: gross - fee,
        ...extra,
      },
    });

    const pending = await ledgerRpc.ingestSettlementReport(report('pending'));
    assert.equal(pending.changed, true);
    assert.equal(pending.settlement!.status, 'pending');
    assert.equal((await ledgerRpc.ingestSettlementReport(report('pending'))).changed, false, 'the same report again');
    assert.deepEqual(await figures(), start, 'a pending settlement moves nothing');
    const id = pending.settlement!.id;
    let detail = (await get(`/v1/settlements/${id}`, k)).body;
    assert.deepEqual([detail.status, detail.settled_at, detail.transaction_count], ['pending', null, 5]);
    assert.deepEqual(detail.items.map((i: any) => [i.type, i.amount, i.fee_amount]).sort(), [
      ['adjustment', -10, 0], ['fee', 0, 35], ['payment', 12_000, first.fee.amount], ['payment', 15_000, second.fee.amount],
      ['refund', -2000, 0],
    ].sort());
    assert.equal(sum(detail.items.map((i: any) => i.net_amount)), Number(gross - fee));

    const settled = await ledgerRpc.ingestSettlementReport(report('settled', { settledAt: timestampFromDate(new Date()) }));
    assert.equal(settled.changed, true);
    assert.equal((await ledgerRpc.ingestSettlementReport(report('settled'))).changed, false);
    await assert.rejects(ledgerRpc.ingestSettlementReport(report('pending')),
      (e: ConnectError) => e.metadata.get('svc-error-code') === 'invalid_state_transition');
    detail = (await get(`/v1/settlements/${id}`, k)).body;
    assert.equal(detail.status, 'settled');
    const now = await figures();
    assert.equal(now.processed_gross, start.processed_gross - 10, 'the adjustment');
    assert.equal(now.fees, start.fees + 35, 'the fee difference and the account fee');
    assert.equal(now.settled_by_providers, Number(gross - fee));
    assert.equal(now.awaiting_provider_settlement, now.processed_net - now.settled_by_providers);
    assert.equal(now.awaiting_provider_settlement, third.amount - third.fee.amount, 'only the third payment awaits');
    const txns = await allTransactions(k);
    assert.deepEqual(txns.filter((t) => t.settlement_id === id).length, 5);
    assert.deepEqual(txns.filter((t) => t.entity_type === 'settlement').map((t) => t.status), ['successful', 'successful']);

    // An item the ledger does not know (yet), or one already settled, refuses the whole report.
    const refused = (param: string) => (e: ConnectError) =>
      e.metadata.get('svc-error-code') === 'validation_error' && e.metadata.get('svc-error-param') === param;
    const lone = (item: Record<string, unknown>) => report('settled', {
      reference: 'BETA-2026-03-02', items: [item], fees: [], grossAmount: item.amount, feeAmount: item.feeAmount,
      netAmount: (item.amount as bigint) - (item.feeAmount as bigint),
    });
    const unknown = { type: 'payment', entityId: 'pay_unknown', amount: 100n, feeAmount: 0n };
    await assert.rejects(ledgerRpc.ingestSettlementReport(lone(unknown)), refused('items[0]'));
    const settledBefore = { type: 'payment', entityId: first.id, amount: 12_000n, feeAmount: 0n };
    await assert.rejects(ledgerRpc.ingestSettlementReport(lone(settledBefore)), refused('items[0]'));
    await assert.rejects(ledgerRpc.ingestSettlementReport(report('settled', { netAmount: 1n })), refused('net_amount'));

    // A batch the provider reports failed releases its movements for a later one.
    const third0 = { type: 'payment', entityId: third.id, amount: 5000n, feeAmount: BigInt(third.fee.amount) };
    const batch = lone(third0);
    batch.report.status = 'pending';
    const p2 = await ledgerRpc.ingestSettlementReport(batch);
    assert.equal((await allTransactions(k)).find((t) => t.entity_id === third.id).settlement_id, p2.settlement!.id);
    batch.report.status = 'failed';
    assert.equal((await ledgerRpc.ingestSettlementReport(batch)).settlement!.status, 'failed');
    assert.equal((await allTransactions(k)).find((t) => t.entity_id === third.id).settlement_id, null);
    assert.deepEqual(await figures(), now, 'a failed settlement moves nothing');
    assert.deepEqual((await get('/v1/settlements?status=failed', k)).body.data.map((s: any) => s.id), [p2.settlement!.id]);

    const { rows } = await stack.query(`SELECT payload FROM ledger.outbox WHERE type = 'settlement.created' AND merchant_id = $1`, [scope.merchantId]);
    assert.deepEqual(rows.map((r) => r.payload.data.object.settlement_reference).sort(), ['BETA-2026-03-01', 'BETA-2026-03-02'],
      'settlement.created once per settlement, when first ingested');
  });
});
