import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConnectError, createClient } from '@connectrpc/connect';
import { LedgerService } from '../proto/gen/svc/ledger/v1/ledger_pb.js';
import { PayoutsService } from '../proto/gen/svc/payouts/v1/payouts_pb.js';
import { create } from '@bufbuild/protobuf';
import { ScopeSchema } from '../proto/gen/svc/common/v1/common_pb.js';
import { createPayouts, type PayoutInput } from '../services/payouts/payouts.js';
import { createPayoutStore } from '../services/payouts/store.js';
import { createPool } from '../services/platform/db.js';
import { createPeerTransport } from '../services/platform/rpc.js';
import { ISO_TIMESTAMP, expectError } from './helpers/api-assertions.js';
import { eventually } from './helpers/eventually.js';
import { offsetClock, request, startTestStack, type TestStack } from './helpers/stack.js';

const DAY = 86_400_000;
const PAYOUT_FIELDS = ['id', 'object', 'mode', 'status', 'amount', 'currency', 'destination', 'route', 'fee', 'failure', 'created_at'];
// A valid IBAN (checksum included), as a raw account number would arrive.
const IBAN = 'DE89 3704 0044 0532 0130 00';

/** Real time plus an offset the tests move: a settlement day or a payout hold passes in an instant. */
const clock = offsetClock();

describe('payouts, through the HTTP gateway', () => {
  let stack: TestStack;
  let ledger: ReturnType<typeof createClient<typeof LedgerService>>;
  let payoutsRpc: ReturnType<typeof createClient<typeof PayoutsService>>;

  before(async () => {
    // A minute's hold in test mode too (the default is seconds): the tests cancel and count queued
    // payouts at leisure, and `dispatch` moves the clock past the hold.
    stack = await startTestStack({ clock, env: { PAYOUT_TEST_HOLD_MS: '60000' } });
    ledger = createClient(LedgerService, createPeerTransport(stack.serviceUrls.ledger, stack.internalToken));
    payoutsRpc = createClient(PayoutsService, createPeerTransport(stack.serviceUrls.payouts, stack.internalToken));
  });
  after(() => stack?.close());

  const post = (key: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    request(stack.baseUrl, 'POST', path, { key, body, headers });
  const get = (key: string, path: string) => request(stack.baseUrl, 'GET', path, { key });
  const destination = (extra: Record<string, unknown> = {}) =>
    ({ type: 'bank_account', token: 'ben_demo_1a2b3c', display: 'DE89 •••• 3000', holder_name: 'Ada Lovelace', country: 'de', ...extra });
  const payout = (key: string, body: Record<string, unknown> = {}, headers?: Record<string, string>) =>
    post(key, '/v1/payouts', { amount: 1000, currency: 'EUR', destination: destination(), ...body }, headers);

  /** Settles, at the demo providers, every movement the ledger has: the clock moves a day on. */
  async function settleAll(): Promise<void> {
    clock.offsetMs += DAY + 60_000;
    await ledger.runSettlementCycle({});
  }

  /** Payouts' hold passes and the queued ones are sent (by this call, or the part's own dispatcher). */
  async function dispatch(key: string): Promise<void> {
    clock.offsetMs += 61_000;
    await payoutsRpc.dispatchPayouts({});
    await eventually('every payout sent', async () => {
      const res = await get(key, '/v1/payouts?status=created,pending&limit=200');
      return res.body.data.length === 0 ? true : undefined;
    });
  }

  const balance = async (key: string, currency = 'EUR') =>
    (await get(key, '/v1/balances')).body.data.find((b: any) => b.currency === currency);

  /** A merchant whose card payments (Demo Beta is cheapest above 20.00) providers have settled; returns the settled funds. */
  async function fundedMerchant(amounts: number[]): Promise<{ key: string; settled: number }> {
    const key = (await stack.newMerchantKey('test')).secret;
    for (const amount of amounts) {
      const res = await post(key, '/v1/payments', { amount, currency: 'EUR', payment_method: 'card' });
      assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    }
    await eventually('the ledger to record the payments', async () => {
      const list = await get(key, '/v1/transactions?type=payment');
      return list.body.data.length === amounts.length ? true : undefined;
    });
    await settleAll();
    const b = await balance(key);
    assert.ok(b.settled_by_providers > 0);
    assert.equal(b.awaiting_provider_settlement, 0);
    return { key, settled: b.settled_by_providers };
  }

  test('422 naming the field: the contract\'s rules, and raw account numbers never accepted', async () => {
    const key = (await stack.newMerchantKey('test')).secret;
    const invalid = (res: { status: number; body: any }, param: string) =>
      expectError(res, 422, 'invalid_request_error', 'validation_error', param);
    invalid(await post(key, '/v1/payouts', { amount: 1000, currency: 'EUR' }), 'destination');
    invalid(await payout(key, { destination: { type: 'bank_account', token: 'ben_1' } }), 'destination.display');
    invalid(await payout(key, { destination: destination({ type: 'iban' }) }), 'destination.type');
    invalid(await payout(key, { amount: 0 }), 'amount');
    invalid(await payout(key, { amount: '100' }), 'amount');
    invalid(await payout(key, { currency: 'EURO' }), 'currency');
    invalid(await payout(key, { currency: 'XYZ' }), 'currency');
    invalid(await payout(key, { test_scenario: 'all_fail' }), 'test_scenario');
    invalid(await payout(key, { destination: destination({ account_number: '12345678' }) }), 'destination.account_number');

    // Raw account numbers: an IBAN anywhere, compact or grouped; a bare account number as the
    // token; eight or more digits in a row in the masked display or the holder's name.
    invalid(await payout(key, { destination: destination({ token: IBAN.replace(/ /g, '') }) }), 'destination.token');
    invalid(await payout(key, { destination: destination({ token: '12345678901' }) }), 'destination.token');
    invalid(await payout(key, { destination: destination({ token: '12-34-56 87654321' }) }), 'destination.token');
    invalid(await payout(key, { destination: destination({ display: IBAN }) }), 'destination.display');
    invalid(await payout(key, { destination: destination({ display: 'acct 0012 3456 78' }) }), 'destination.display');
    invalid(await payout(key, { destination: destination({ holder_name: `Ada ${IBAN.toLowerCase()}` }) }), 'destination.holder_name');
    // A card number keeps its own code.
    expectError(await payout(key, { destination: destination({ token: '4242 4242 4242 4242' }) }),
      422, 'invalid_request_error', 'card_data_not_accepted', 'destination.token');

    // Like card data, refused before idempotency: the corrected body may reuse the key.
    const headers = { 'idempotency-key': 'po-raw-then-fixed' };
    invalid(await payout(key, { destination: destination({ token: IBAN }) }, headers), 'destination.token');
    const fixed = await payout(key, {}, headers);
    assert.equal(fixed.status, 201, JSON.stringify(fixed.body));

    // Tokens and masks of the usual shapes pass.
    for (const d of [
      { type: 'wallet', token: 'wal_8f3a9c', display: 'ada@example.com' },
      { type: 'card_token', token: 'tok_4242', display: '•••• 4242' },
      { type: 'bank_account', token: 'btok_US1234567', display: 'Checking •••• 6789', holder_name: 'Ada Lovelace' },
    ]) {
      const res = await payout(key, { destination: d });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
  });

  test('test_scenario with a live key is 400; a live payout needs settled funds like any other', async () => {
    const live = (await stack.newMerchantKey('live')).secret;
    expectError(await payout(live, { test_scenario: 'success' }), 400, 'invalid_request_error', 'test_scenario_not_allowed', 'test_scenario');
    const refused = await payout(live);
    expectError(refused, 409, 'state_error', 'insufficient_settled_funds', 'amount');
    assert.match(refused.body.error.message, /needs 10\.\d\d EUR .* 0\.00 EUR of the funds providers settled is available/);
  });

  test('live keeps the rule: amount plus fee must fit in settled funds less what is committed; racing payouts, one wins', async () => {
    // No provider pays out in live mode here, so payouts' own module runs against its real schema
    // with the settled funds (10 000) and the route (Demo Beta's fee 20) given.
    const m = await stack.newMerchantKey('live');
    const scope = create(ScopeSchema, { merchantId: m.merchantId, projectId: m.projectId, mode: 'live' });
    const pool = createPool(stack.db.url, 'payouts', 8);
    const live = createPayouts({
      store: createPayoutStore(pool),
      routing: { planPayout: async () => ({ rule: 'bank_account', candidates: [{
        providerId: 'prv_demo_beta', providerCode: 'demo_beta', providerName: 'Demo Beta', providerAccountId: 'pac_demo_beta', fee: 20n,
      }] }) } as any,
      ledger: { getSettledFunds: async () => ({ currency: 'EUR', settledByProviders: 10_000n }) } as any,
      clock, relay: { kick: () => undefined }, holdMs: 3_600_000, idempotencyTtlMs: DAY,
    });
    const input = (amount: number): PayoutInput => ({
      amount: BigInt(amount), currency: 'EUR', description: null, reference: null, metadata: {}, testScenario: null,
      destination: { type: 'bank_account', token: 'ben_live_1', display: '•••• 3000', holderName: null, country: null },
    });
    const code = (e: ConnectError) => e.metadata.get('svc-error-code') === 'insufficient_settled_funds';
    try {
      await assert.rejects(live.create(scope, input(9_981)), code, 'amount plus fee is 10 001');
      const exact = await live.create(scope, input(9_980));
      assert.equal(exact.status, 'created');
      await assert.rejects(live.create(scope, input(1)), code, 'a queued payout holds its funds');
      await live.cancel(scope, exact.id);
      const racing = await Promise.allSettled(Array.from({ length: 4 }, () => live.create(scope, input(6_000))));
      assert.deepEqual(racing.map((r) => r.status).sort(), ['fulfilled', 'rejected', 'rejected', 'rejected']);
      for (const r of racing) if (r.status === 'rejected') assert.ok(code(r.reason), String(r.reason));
      for (const r of racing) if (r.status === 'fulfilled') await live.cancel(scope, r.value.id);
    } finally {
      await pool.end();
    }
  });

  test('sandbox: a fresh test merchant\'s first payout succeeds at once, with nothing processed or settled', async () => {
    const key = (await stack.newMerchantKey('test')).secret;
    const first = await payout(key, { amount: 1000, test_scenario: 'success' });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.status, 'created');
    assert.deepEqual(first.body.fee, { amount: 20, currency: 'EUR' });
    // Far beyond anything settled: test money is simulated, so no amount is refused for funds.
    const large = await payout(key, { amount: 5_000_000, test_scenario: 'success' });
    assert.equal(large.status, 201, JSON.stringify(large.body));

    await dispatch(key);
    const sent = (await get(key, `/v1/payouts/${first.body.id}`)).body;
    assert.equal(sent.status, 'successful');
    assert.match(sent.route.provider_payout_id, /^demo_beta_po_/);
    // payout.successful reached the ledger: the payout's transaction, and what it took.
    const txn = await eventually('the payout\'s transaction', async () =>
      (await get(key, '/v1/transactions?type=payout')).body.data.find((t: any) => t.entity_id === first.body.id));
    assert.deepEqual([txn.status, txn.amount, txn.fee_amount, txn.net_amount], ['successful', -1000, 20, -1020]);
    await eventually('both payouts in the ledger', async () =>
      ((await get(key, '/v1/transactions?type=payout')).body.data.length === 2 ? true : undefined));
    const b = await balance(key);
    assert.deepEqual([b.settled_by_providers, b.payouts_sent], [0, 1020 + 5_000_020]);
  });

  test('sandbox: without a scenario a payout draws on what test payments processed; beyond it, insufficient_funds', async () => {
    const key = (await stack.newMerchantKey('test')).secret;
    // Nothing processed: $999,999.99 cannot be "successful" beside $0.00 of payments.
    const huge = await payout(key, { amount: 99_999_999, currency: 'USD' });
    assert.equal(huge.status, 201, JSON.stringify(huge.body));
    assert.equal(huge.body.status, 'failed');
    assert.deepEqual([huge.body.failure.code, huge.body.failure.category], ['insufficient_funds', 'policy']);
    assert.match(huge.body.failure.message, /needs 1000000\.19 USD .* leave 0\.00 USD/);
    assert.equal(huge.body.fee.amount, 0, 'a payout never sent costs no fee');

    const paid = await post(key, '/v1/payments', { amount: 5000, currency: 'EUR', payment_method: 'card' });
    assert.equal(paid.body.status, 'successful', JSON.stringify(paid.body));
    const processed = await eventually('the payment in the balance', async () => (await balance(key))?.processed_net);
    // Within what was processed (less the fee of 20): sent, though the demo providers settle only tomorrow.
    const fits = await payout(key, { amount: processed - 20 });
    assert.equal(fits.body.status, 'created', JSON.stringify(fits.body));
    // The first payout committed all of it: a second one finds nothing left.
    const second = await payout(key, { amount: 100 });
    assert.equal(second.body.failure?.code, 'insufficient_funds', JSON.stringify(second.body));
    // A scenario says what the demo provider does: success sends any amount; insufficient_funds is its refusal.
    const forced = await payout(key, { amount: 99_999_999, test_scenario: 'success' });
    assert.equal(forced.body.status, 'created', JSON.stringify(forced.body));
    const refused = await payout(key, { amount: 100, test_scenario: 'insufficient_funds' });
    assert.equal(refused.body.status, 'created', JSON.stringify(refused.body));
    await dispatch(key);
    const sent = (await get(key, `/v1/payouts/${refused.body.id}`)).body;
    assert.equal(sent.status, 'failed');
    assert.equal(sent.failure.code, 'insufficient_funds');
    assert.equal((await get(key, `/v1/payouts/${fits.body.id}`)).body.status, 'successful');
    assert.equal((await get(key, `/v1/payouts/${huge.body.id}`)).body.status, 'failed', 'never sent');
  });

  test('scenarios force outcomes; payout.* events reach the ledger; failed payouts release their funds', async () => {
    const { key, settled } = await fundedMerchant([50_000, 50_000]);
    const created: Record<string, any> = {};
    for (const [scenario, type] of [
      ['success', 'bank_account'], ['technical_error', 'bank_account'], ['hard_decline', 'wallet'],
      ['unavailable', 'card_token'], ['timeout', 'card_token'],
    ]) {
      const res = await payout(key, {
        amount: 5000, test_scenario: scenario, reference: `po-${scenario}`, destination: destination({ type }),
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      created[scenario] = res.body;
    }
    const p = created.success;
    assert.deepEqual(Object.keys(p), PAYOUT_FIELDS);
    assert.match(p.id, /^po_/);
    assert.equal(p.object, 'payout');
    assert.equal(p.mode, 'test');
    assert.equal(p.status, 'created', 'queued for a provider, still cancellable');
    assert.equal(p.amount, 5000);
    assert.equal(p.currency, 'EUR');
    assert.deepEqual(p.destination, { type: 'bank_account', display: 'DE89 •••• 3000', holder_name: 'Ada Lovelace', country: 'DE' },
      'the token is never echoed');
    assert.deepEqual(p.route, {
      provider: { id: 'prv_demo_beta', code: 'demo_beta', name: 'Demo Beta' },
      provider_account_id: 'pac_demo_beta', provider_payout_id: null, rule: 'bank_account',
      scheduled_for: new Date(Date.parse(p.created_at) + 60_000).toISOString(),
    }, 'scheduled_for: the end of the cancellation window (PAYOUT_TEST_HOLD_MS)');
    // Wallets have no rule of their own: the default rule, cheapest first (Demo Alpha's 25 against
    // Demo Gamma's 15 + 0.5%).
    assert.equal(created.hard_decline.route.provider.code, 'demo_alpha');
    assert.equal(created.hard_decline.route.rule, 'default');
    assert.equal(created.unavailable.route.provider.code, 'demo_alpha', 'card tokens: card networks first');
    assert.equal(p.failure, null);
    assert.match(p.created_at, ISO_TIMESTAMP);

    await dispatch(key);
    const now = async (id: string) => (await get(key, `/v1/payouts/${id}`)).body;
    const ok = await now(p.id);
    assert.equal(ok.status, 'successful');
    assert.match(ok.route.provider_payout_id, /^demo_beta_po_/);
    assert.deepEqual(ok.fee, { amount: 20, currency: 'EUR' });
    for (const [scenario, code, category] of [
      ['technical_error', 'provider_error', 'technical'], ['hard_decline', 'hard_decline', 'hard'],
      ['unavailable', 'provider_unavailable', 'technical'],
    ]) {
      const failed = await now(created[scenario].id);
      assert.equal(failed.status, 'failed', scenario);
      assert.equal(failed.failure.code, code);
      assert.equal(failed.failure.category, category);
      assert.equal(typeof failed.failure.message, 'string');
      assert.equal(failed.fee.amount, 0, 'a refused payout is not charged for');
    }
    const unknown = await now(created.timeout.id);
    assert.equal(unknown.status, 'processing', 'no answer: the money may have left, so it is neither failed nor retried');
    assert.equal(unknown.failure, null);

    // The ledger records outcomes only: one successful and three failed payout transactions.
    const txns = await eventually('payout transactions', async () => {
      const list = (await get(key, '/v1/transactions?type=payout')).body.data;
      return list.length === 4 ? list : undefined;
    });
    const byEntity = new Map(txns.map((t: any) => [t.entity_id, t]));
    const sent: any = byEntity.get(p.id);
    assert.equal(sent.status, 'successful');
    assert.equal(sent.amount, -5000);
    assert.equal(sent.fee_amount, 20);
    assert.equal(sent.net_amount, -5020);
    assert.equal(sent.provider_name, 'Demo Beta');
    assert.equal(sent.provider_reference, ok.route.provider_payout_id);
    assert.equal(sent.entity_type, 'payout');
    assert.equal(sent.payment_id, null);
    assert.equal((byEntity.get(created.hard_decline.id) as any).failure_code, 'hard_decline');
    assert.ok(!byEntity.has(created.timeout.id));

    const b = await balance(key);
    assert.equal(b.payouts_sent, 5020);
    assert.equal(b.settled_by_providers, settled);
    // What is left for payouts: settled less the sent one and the one still in flight.
    // Beyond what is left of the settled funds (less the one still in flight): the sandbox does not refuse it.
    const left = settled - 5020 - (5000 + unknown.fee.amount);
    assert.equal((await payout(key, { amount: left + 1 })).status, 201);
  });

  test('cancel: only a queued payout, once; otherwise 409 invalid_state_transition; 404 outside the scope', async () => {
    const { key } = await fundedMerchant([20_000]);
    const other = (await stack.newMerchantKey('test')).secret;
    const queued = (await payout(key, { amount: 1000 })).body;
    const timeout = (await payout(key, { amount: 1000, test_scenario: 'timeout' })).body;
    const success = (await payout(key, { amount: 1000 })).body;

    expectError(await post(other, `/v1/payouts/${queued.id}/cancel`), 404, 'not_found_error', 'resource_not_found', 'id');
    expectError(await post(key, '/v1/payouts/po_unknown/cancel'), 404, 'not_found_error', 'resource_not_found', 'id');
    const cancelled = await post(key, `/v1/payouts/${queued.id}/cancel`);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.status, 'cancelled');
    assert.deepEqual(Object.keys(cancelled.body), PAYOUT_FIELDS);
    expectError(await post(key, `/v1/payouts/${queued.id}/cancel`), 409, 'state_error', 'invalid_state_transition', 'id');

    await dispatch(key);
    assert.equal((await get(key, `/v1/payouts/${queued.id}`)).body.status, 'cancelled', 'a cancelled payout is never sent');
    expectError(await post(key, `/v1/payouts/${success.id}/cancel`), 409, 'state_error', 'invalid_state_transition', 'id');
    expectError(await post(key, `/v1/payouts/${timeout.id}/cancel`), 409, 'state_error', 'invalid_state_transition', 'id');
    assert.equal((await get(key, `/v1/payouts/${success.id}`)).body.status, 'successful');
  });

  test('list newest first with a status filter and cursor pagination; get; other scopes see nothing', async () => {
    const { key } = await fundedMerchant([20_000]);
    const other = (await stack.newMerchantKey('test')).secret;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await payout(key, { amount: 100 + i, test_scenario: i === 1 ? 'hard_decline' : 'success' })).body.id);
    const cancelled = ids[4];
    assert.equal((await post(key, `/v1/payouts/${cancelled}/cancel`)).status, 200);
    await dispatch(key);

    const pages: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await get(key, `/v1/payouts?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(res.status, 200);
      assert.ok(res.body.data.length <= 2);
      pages.push(...res.body.data.map((p: any) => p.id));
      cursor = res.body.has_more ? res.body.next_cursor : undefined;
      if (!res.body.has_more) assert.equal(res.body.next_cursor, null);
    } while (cursor);
    assert.deepEqual(pages, [...ids].reverse());

    const failed = await get(key, '/v1/payouts?status=failed');
    assert.deepEqual(failed.body.data.map((p: any) => p.id), [ids[1]]);
    const some = await get(key, '/v1/payouts?status=cancelled,failed');
    assert.deepEqual(some.body.data.map((p: any) => p.id), [cancelled, ids[1]]);
    expectError(await get(key, '/v1/payouts?status=sent'), 422, 'invalid_request_error', 'validation_error', 'status');
    const foreignCursor = Buffer.from('v1:pay_01m80zang4dfw7mkr5dxcarxx4').toString('base64url');
    expectError(await get(key, `/v1/payouts?cursor=${foreignCursor}`), 400, 'invalid_request_error', 'invalid_cursor', 'cursor');

    const one = await get(key, `/v1/payouts/${ids[0]}`);
    assert.equal(one.status, 200);
    const listed = (await get(key, '/v1/payouts?limit=200')).body.data.find((p: any) => p.id === ids[0]);
    assert.deepEqual(one.body, listed);
    expectError(await get(other, `/v1/payouts/${ids[0]}`), 404, 'not_found_error', 'resource_not_found', 'id');
    assert.deepEqual((await get(other, '/v1/payouts')).body, { data: [], has_more: false, next_cursor: null });
  });
});
