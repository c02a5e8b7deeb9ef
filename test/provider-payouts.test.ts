// Live payouts through a connected Stripe account (the official SDK pointed at the local Stripe
// stand-in): a live merchant with settled funds sends a payout through the REST gateway; payouts asks
// payments, which calls POST /v1/payouts with the payout id as Idempotency-Key; Stripe's pending
// payout is asked again until paid; a closed bank account fails it with the table's failure; a lost
// answer is resolved by the status query without a second payout. Stripe's payout webhooks
// (payout.paid, payout.failed, payout.canceled), signed as Stripe signs them, decide a pending payout
// without a status query, once; the status query stays as a safety net, asked after growing waits. A
// paid payout its bank returns (payout.failed afterwards) fails once and the ledger reverses it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import pg from 'pg';
import { LedgerService } from '../proto/gen/svc/ledger/v1/ledger_pb.js';
import { ProviderNotificationsService } from '../proto/gen/svc/payments/v1/provider_notifications_pb.js';
import { PayoutsService } from '../proto/gen/svc/payouts/v1/payouts_pb.js';
import { abandonedAfterMs } from '../services/platform/deadline.js';
import { createPeerTransport } from '../services/platform/rpc.js';
import { eventually } from './helpers/eventually.js';
import { deliver, signed, stripeEvent } from './helpers/stripe-events.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';
import { sentUnder } from './helpers/connector-requests.js';
import { offsetClock, request, startTestStack, type TestStack } from './helpers/stack.js';

const KEY = `sk_live_standin_${Date.now()}`;
const WEBHOOK_SECRET = 'whsec_live_standin';
const TIMEOUT_MS = 1000;
/** The tests move it: a payout's hold, or the wait before it is asked again, passes at once. */
const clock = offsetClock();

describe('live payouts through a Stripe account (stand-in)', () => {
  let stack: TestStack;
  let stripe: StripeStandIn;
  let db: pg.Pool;
  let ledger: ReturnType<typeof createClient<typeof LedgerService>>;
  let payoutsRpc: ReturnType<typeof createClient<typeof PayoutsService>>;

  before(async () => {
    stripe = await startStripeStandIn({ secretKeys: [KEY] });
    stack = await startTestStack({
      clock, env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex'), PROVIDER_TIMEOUT_MS: String(TIMEOUT_MS) },
    });
    db = new pg.Pool({ connectionString: stack.db.url, max: 2 });
    ledger = createClient(LedgerService, createPeerTransport(stack.serviceUrls.ledger, stack.internalToken));
    payoutsRpc = createClient(PayoutsService, createPeerTransport(stack.serviceUrls.payouts, stack.internalToken));
  });
  after(async () => {
    await db?.end();
    await stack?.close();
    await stripe?.close();
  });

  const get = (key: string, path: string) => request(stack.baseUrl, 'GET', path, { key });

  /**
   * A live merchant with a Stripe account connected as docs/connectors.md says, one live card
   * payment taken there, and Stripe's settlement of it ingested: its net is the settled funds.
   */
  async function fundedAtStripe() {
    const m = await stack.newMerchantKey('live');
    const connected = await stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, {
      provider: 'stripe', mode: 'live', name: 'Stripe EU', fee_fixed: 25, fee_bps: 140,
      credentials: { secret_key: KEY, webhook_secret: WEBHOOK_SECRET, api_base_url: stripe.baseUrl },
    });
    assert.equal(connected.status, 201, JSON.stringify(connected.body));
    const paid = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key: m.secret, body: { amount: 20_000, currency: 'EUR', payment_method: { type: 'card', token: 'pm_card_visa' } },
    });
    assert.equal(paid.body.status, 'successful', JSON.stringify(paid.body));
    const fee = BigInt(paid.body.fee.amount);
    const scope = { merchantId: m.merchantId, projectId: m.projectId, mode: 'live' };
    await eventually('the settlement ingested once the ledger has the payment', async () => {
      try {
        return await ledger.ingestSettlementReport({
          report: {
            scope, providerAccountId: connected.body.id, reference: `po_auto_${m.projectId}`, currency: 'EUR', status: 'settled',
            periodStart: timestampFromDate(new Date(Date.now() - 86_400_000)), periodEnd: timestampFromDate(new Date()),
            settledAt: timestampFromDate(new Date()), items: [{ type: 'payment', entityId: paid.body.id, amount: 20_000n, feeAmount: fee }],
            grossAmount: 20_000n, feeAmount: fee, netAmount: 20_000n - fee,
          },
        });
      } catch {
        return undefined;
      }
    });
    return { ...m, accountId: connected.body.id as string, settled: 20_000 - Number(fee) };
  }

  const payout = (key: string, token: string) => request(stack.baseUrl, 'POST', '/v1/payouts', {
    key,
    body: {
      amount: 5000, currency: 'EUR', description: 'March earnings',
      destination: { type: 'bank_account', token, display: 'DE89 •••• 3000', holder_name: 'Ada Lovelace', country: 'DE' },
    },
  });

  /** The hold passes (first send), or the wait before an open payout is asked again. */
  async function dispatch(advanceMs: number): Promise<void> {
    clock.offsetMs += advanceMs;
    await payoutsRpc.dispatchPayouts({});
  }
  const askAgain = () => dispatch(abandonedAfterMs(TIMEOUT_MS) + 1000);

  const payoutNow = async (key: string, id: string) => (await get(key, `/v1/payouts/${id}`)).body;
  const until = (key: string, id: string, status: string) => eventually(`payout ${id} ${status}`, async () => {
    const p = await payoutNow(key, id);
    return p.status === status ? p : undefined;
  });
  const creates = (payoutId: string) =>
    sentUnder(stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payouts'), payoutId);
  /** The public events of a payout, in order; its internal payout.settled events are internalOf's. */
  async function eventsOf(id: string): Promise<string[]> {
    const { rows } = await db.query(
      `SELECT type FROM payouts.outbox WHERE payload->'data'->'object'->>'id' = $1 AND type NOT LIKE 'internal.%' ORDER BY seq`, [id],
    );
    return rows.map((r) => r.type);
  }
  /** The statuses of a payout's internal payout.settled events (the ledger records from them), in order. */
  async function internalOf(id: string): Promise<string[]> {
    const { rows } = await db.query(
      `SELECT payload->'data'->'object'->>'status' AS status FROM payouts.outbox
       WHERE payload->'data'->'object'->>'id' = $1 AND type = 'internal.payout.settled' ORDER BY seq`, [id],
    );
    return rows.map((r) => r.status);
  }

  test('a live payout is sent once from the Stripe account, under its payout id, and is successful when Stripe has paid it', async () => {
    const m = await fundedAtStripe();
    const created = await payout(m.secret, 'ba_1QstandinDE89');
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual([created.body.status, created.body.route.provider.code, created.body.route.provider_account_id],
      ['created', 'stripe', m.accountId]);
    assert.equal(created.body.fee.amount, 0, 'Stripe charges nothing per standard payout');
    const id = created.body.id;

    await dispatch(61_000);
    const sent = await until(m.secret, id, 'processing');
    assert.match(sent.route.provider_payout_id, /^po_standin/, 'Stripe accepted it: pending');
    const [req] = creates(id);
    assert.deepEqual(req.params, {
      amount: '5000', currency: 'eur', destination: 'ba_1QstandinDE89', description: 'March earnings', metadata: { payout_id: id },
    });
    assert.match(String(req.headers.authorization), /^Bearer sk_live_standin_/);

    await askAgain();
    const done = await until(m.secret, id, 'successful');
    assert.equal(done.route.provider_payout_id, sent.route.provider_payout_id);
    assert.equal(creates(id).length, 1, 'exactly one payout request');
    assert.ok(stripe.requests.some((r) => r.method === 'GET' && r.path === `/v1/payouts/${sent.route.provider_payout_id}`));
    assert.deepEqual(await eventsOf(id), ['payout.created', 'payout.successful']);
    const b = await eventually('the payout in the balance', async () => {
      const found = (await get(m.secret, '/v1/balances')).body.data.find((x: any) => x.currency === 'EUR');
      return found?.payouts_sent === 5000 ? found : undefined;
    });
    assert.equal(b.settled_by_providers, m.settled);
  });

  test('a closed bank account: Stripe fails the payout later, which fails here with the table\'s failure and frees the funds', async () => {
    const m = await fundedAtStripe();
    const created = await payout(m.secret, 'ba_standin_accountClosed');
    const id = created.body.id;
    await dispatch(61_000);
    await until(m.secret, id, 'processing');
    await askAgain();
    const failed = await until(m.secret, id, 'failed');
    assert.deepEqual(failed.failure, { code: 'account_closed', category: 'hard', message: 'The beneficiary\'s bank account is closed.', decline_reason: null });
    assert.equal(failed.fee.amount, 0);
    assert.equal(creates(id).length, 1);
    assert.deepEqual(await eventsOf(id), ['payout.created', 'payout.failed']);
    // The funds it held are free again: a payout of everything settled fits.
    const all = await request(stack.baseUrl, 'POST', '/v1/payouts', {
      key: m.secret,
      body: { amount: m.settled, currency: 'EUR', destination: { type: 'bank_account', token: 'ba_1QstandinDE89', display: 'DE89 •••• 3000' } },
    });
    assert.equal(all.status, 201, JSON.stringify(all.body));
  });

  test('a lost answer: the status query finds the payout Stripe made, and nothing is sent twice', async () => {
    const m = await fundedAtStripe();
    const created = await payout(m.secret, 'ba_standin_lostAnswer');
    const id = created.body.id;
    await dispatch(61_000);
    const unknown = await until(m.secret, id, 'processing');
    assert.equal(unknown.route.provider_payout_id, null, 'no answer: Stripe\'s id is not known yet');

    await askAgain();
    const found = await eventually('Stripe\'s payout found by our payout id', async () => {
      const p = await payoutNow(m.secret, id);
      return p.route.provider_payout_id ? p : undefined;
    });
    assert.equal(found.status, 'processing', 'found pending at Stripe');
    assert.ok(stripe.requests.some((r) => r.method === 'GET' && r.path === '/v1/payouts' && r.query.has('created[gte]')));
    await askAgain();
    await until(m.secret, id, 'successful');
    assert.equal(creates(id).length, 1, 'the status query answered: the payout was not sent again');
    assert.deepEqual(await eventsOf(id), ['payout.created', 'payout.successful']);
  });

  test('Stripe refusing at once (no balance at Stripe) fails the payout without sending anything', async () => {
    const m = await fundedAtStripe();
    const created = await payout(m.secret, 'ba_standin_noBalance');
    await dispatch(61_000);
    const failed = await until(m.secret, created.body.id, 'failed');
    assert.deepEqual(failed.failure, {
      code: 'provider_balance_insufficient', category: 'policy', message: 'The Stripe account\'s balance could not cover the payout.', decline_reason: null,
    });
  });
  const polls = (providerPayoutId: string) =>
    stripe.requests.filter((r) => r.method === 'GET' && r.path === `/v1/payouts/${providerPayoutId}`).length;
  /** Stripe's bank answers the payout (the stand-in's copy changes) and Stripe sends the event, signed. */
  function webhook(accountId: string, type: string, providerPayoutId: string, change: Record<string, unknown>) {
    const po = stripe.payouts.get(providerPayoutId)!;
    Object.assign(po, change);
    return deliver(stack.baseUrl, accountId, signed(stripeEvent(type, po), WEBHOOK_SECRET));
  }
  /** A payout to an account whose bank takes days: Stripe keeps it pending at every look. */
  async function pendingAtStripe(m: { secret: string }) {
    const created = await payout(m.secret, 'ba_standin_staysPending');
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await dispatch(61_000);
    const sent = await until(m.secret, created.body.id, 'processing');
    return { id: created.body.id as string, providerPayoutId: sent.route.provider_payout_id as string };
  }
  async function schedule(id: string): Promise<{ polls: number; nextPollAt: Date; updatedAt: Date }> {
    const { rows } = await db.query('SELECT polls, next_poll_at, updated_at FROM payouts.payouts WHERE id = $1', [id]);
    return { polls: rows[0].polls, nextPollAt: rows[0].next_poll_at, updatedAt: rows[0].updated_at };
  }
  /** The payouts part's clock at `t`, then a dispatch (the sweep's work). */
  async function dispatchAt(t: number): Promise<void> {
    clock.offsetMs = t - Date.now();
    await payoutsRpc.dispatchPayouts({});
  }

  test('a signed payout.paid decides a pending payout with no status query, once: the ledger and events as when the poll decides', async () => {
    const m = await fundedAtStripe();
    const { id, providerPayoutId } = await pendingAtStripe(m);
    const first = await webhook(m.accountId, 'payout.paid', providerPayoutId, { status: 'paid' });
    assert.deepEqual([first.status, first.body.new_notifications], [200, 1], JSON.stringify(first.body));
    const done = await payoutNow(m.secret, id);
    assert.equal(done.status, 'successful', 'decided before the webhook was answered');
    assert.equal(done.route.provider_payout_id, providerPayoutId);
    assert.equal(polls(providerPayoutId), 0, 'Stripe was never asked');
    assert.deepEqual(await eventsOf(id), ['payout.created', 'payout.successful']);
    const b = await eventually('the payout in the balance', async () => {
      const found = (await get(m.secret, '/v1/balances')).body.data.find((x: any) => x.currency === 'EUR');
      return found?.payouts_sent === 5000 ? found : undefined;
    });
    assert.equal(b.settled_by_providers, m.settled);

    // Stripe sends the same event again (its answer was lost): recorded once, nothing moves.
    const replayed = signed(stripeEvent('payout.paid', stripe.payouts.get(providerPayoutId)!), WEBHOOK_SECRET);
    const again = await deliver(stack.baseUrl, m.accountId, replayed);
    const replay = await deliver(stack.baseUrl, m.accountId, replayed);
    assert.deepEqual([again.body.new_notifications, replay.status, replay.body.new_notifications], [1, 200, 0]);
    assert.deepEqual(await eventsOf(id), ['payout.created', 'payout.successful']);
    // The webhook ended the polling: however long the sweep runs, Stripe is not asked about it.
    await dispatch(2 * 3_600_000);
    assert.equal(polls(providerPayoutId), 0);
    const { rows } = await db.query(
      `SELECT effect FROM payments.provider_notifications WHERE provider_account_id = $1 AND event_id = $2`, [m.accountId, replayed.eventId],
    );
    assert.deepEqual(rows, [{ effect: 'forwarded' }]);
  });

  test('payout.failed fails the payout with the table\'s failure for its failure_code; a later payout.paid for it changes nothing', async () => {
    const m = await fundedAtStripe();
    const { id, providerPayoutId } = await pendingAtStripe(m);
    const res = await webhook(m.accountId, 'payout.failed', providerPayoutId, {
      status: 'failed', failure_code: 'account_closed', failure_message: 'The bank account has been closed.',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const failed = await payoutNow(m.secret, id);
    assert.equal(failed.status, 'failed');
    assert.deepEqual(failed.failure, { code: 'account_closed', category: 'hard', message: 'The beneficiary\'s bank account is closed.', decline_reason: null });
    assert.equal(failed.fee.amount, 0);
    assert.deepEqual(await eventsOf(id), ['payout.created', 'payout.failed']);

    // Out of order or a change of heart at the bank: the payout is final and stays failed.
    const late = await webhook(m.accountId, 'payout.paid', providerPayoutId, { status: 'paid', failure_code: null, failure_message: null });
    assert.deepEqual([late.status, late.body.new_notifications], [200, 1]);
    assert.equal((await payoutNow(m.secret, id)).status, 'failed');
    assert.deepEqual(await eventsOf(id), ['payout.created', 'payout.failed']);
    assert.equal(polls(providerPayoutId), 0);

    const other = await pendingAtStripe(m);
    await webhook(m.accountId, 'payout.canceled', other.providerPayoutId, { status: 'canceled' });
    assert.deepEqual((await payoutNow(m.secret, other.id)).failure, {
      code: 'payout_canceled', category: 'technical', message: 'The payout was canceled at Stripe; the funds returned.', decline_reason: null,
    });
  });

  test('a paid payout its bank returns (payout.failed after payout.paid) fails once, and the ledger gives its amount back', async () => {
    const m = await fundedAtStripe();
    const { id, providerPayoutId } = await pendingAtStripe(m);
    await webhook(m.accountId, 'payout.paid', providerPayoutId, { status: 'paid' });
    assert.equal((await payoutNow(m.secret, id)).status, 'successful');
    const balance = (payoutsSent: number) => eventually(`payouts_sent ${payoutsSent}`, async () => {
      const found = (await get(m.secret, '/v1/balances')).body.data.find((x: any) => x.currency === 'EUR');
      return found?.payouts_sent === payoutsSent ? found : undefined;
    });
    await balance(5000);

    // Days later: the bank sent the money back to the Stripe balance.
    const po = Object.assign(stripe.payouts.get(providerPayoutId)!, {
      status: 'failed', failure_code: 'account_closed', failure_message: 'The bank account has been closed.',
    });
    const returned = signed(stripeEvent('payout.failed', po), WEBHOOK_SECRET);
    const res = await deliver(stack.baseUrl, m.accountId, returned);
    assert.deepEqual([res.status, res.body.new_notifications], [200, 1], JSON.stringify(res.body));
    const failed = await payoutNow(m.secret, id);
    assert.equal(failed.status, 'failed');
    assert.deepEqual(failed.failure, { code: 'account_closed', category: 'hard', message: 'The beneficiary\'s bank account is closed.', decline_reason: null });
    assert.deepEqual(await eventsOf(id), ['payout.created', 'payout.successful', 'payout.failed']);
    assert.deepEqual(await internalOf(id), ['successful', 'failed'], 'one payout.settled beside each outcome');
    const b = await balance(0);
    assert.equal(b.settled_by_providers, m.settled, 'the settled funds are whole again');
    const ledgerRows = async () => (await db.query(
      `SELECT type, status, amount::int, failure_code FROM ledger.transactions WHERE entity_type = 'payout' AND entity_id = $1 ORDER BY type`,
      [id],
    )).rows;
    const reversed = [
      { type: 'adjustment', status: 'successful', amount: 5000, failure_code: 'account_closed' },
      { type: 'payout', status: 'successful', amount: -5000, failure_code: null },
    ];
    assert.deepEqual(await ledgerRows(), reversed);

    // The same event again, Stripe's next failed event, then a paid one: nothing moves.
    assert.equal((await deliver(stack.baseUrl, m.accountId, returned)).body.new_notifications, 0);
    await webhook(m.accountId, 'payout.failed', providerPayoutId, {});
    await webhook(m.accountId, 'payout.paid', providerPayoutId, { status: 'paid', failure_code: null, failure_message: null });
    assert.equal((await payoutNow(m.secret, id)).status, 'failed');
    assert.deepEqual(await eventsOf(id), ['payout.created', 'payout.successful', 'payout.failed']);
    assert.deepEqual(await ledgerRows(), reversed);
    // Its funds are free again: a payout of everything settled fits.
    const all = await request(stack.baseUrl, 'POST', '/v1/payouts', {
      key: m.secret,
      body: { amount: m.settled, currency: 'EUR', destination: { type: 'bank_account', token: 'ba_1QstandinDE89', display: 'DE89 •••• 3000' } },
    });
    assert.equal(all.status, 201, JSON.stringify(all.body));
  });

  test('a payout event payments recorded but never handed on (the gateway died) decides the payout when Stripe sends it again', async () => {
    const m = await fundedAtStripe();
    const { id, providerPayoutId } = await pendingAtStripe(m);
    const po = Object.assign(stripe.payouts.get(providerPayoutId)!, { status: 'paid' });
    const d = signed(stripeEvent('payout.paid', po), WEBHOOK_SECRET);
    const notifications = createClient(ProviderNotificationsService, createPeerTransport(stack.serviceUrls.payments, stack.internalToken));
    const lost = await notifications.receiveNotification({
      providerCode: 'stripe', providerAccountId: m.accountId, body: Buffer.from(d.body),
      headers: Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k.toLowerCase(), v])),
    });
    assert.deepEqual([lost.newNotifications, lost.payouts.length], [1, 1]);
    assert.equal((await payoutNow(m.secret, id)).status, 'processing', 'recorded by payments only');
    const retried = await deliver(stack.baseUrl, m.accountId, d);
    assert.deepEqual([retried.status, retried.body.new_notifications], [200, 0]);
    assert.equal((await payoutNow(m.secret, id)).status, 'successful');
    assert.deepEqual(await eventsOf(id), ['payout.created', 'payout.successful']);
  });

  test('a payout Stripe keeps pending is asked again after growing waits, stored per payout, until its webhook ends it', async () => {
    const m = await fundedAtStripe();
    const { id, providerPayoutId } = await pendingAtStripe(m);
    const first = abandonedAfterMs(TIMEOUT_MS);
    let s = await schedule(id);
    for (let n = 1; n <= 5; n++) {
      const full = first * 2 ** (n - 1);
      const wait = s.nextPollAt.getTime() - s.updatedAt.getTime();
      assert.equal(s.polls, n);
      assert.ok(wait <= full && wait >= full * 0.8, `wait ${n} is ${wait} ms, between 80 % and 100 % of ${full} ms`);
      await dispatchAt(s.nextPollAt.getTime() - 1000);
      assert.equal(polls(providerPayoutId), n - 1, `not asked before its next poll (${n})`);
      await dispatchAt(s.nextPollAt.getTime() + 10);
      assert.equal(polls(providerPayoutId), n, `asked once at its next poll (${n})`);
      s = await schedule(id);
    }
    assert.equal((await payoutNow(m.secret, id)).status, 'processing');
    await webhook(m.accountId, 'payout.paid', providerPayoutId, { status: 'paid' });
    assert.equal((await payoutNow(m.secret, id)).status, 'successful');
    await dispatchAt(s.nextPollAt.getTime() + 10);
    assert.equal(polls(providerPayoutId), 5, 'decided: no longer asked');
  });
});
