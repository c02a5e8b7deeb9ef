// The scheduled Stripe settlement sync (SETTLEMENT_SYNC_INTERVAL_MS, services/payments/jobs/
// settlement-sync.ts) on the real stack: two more builds of payments on the stack's database (two
// replicas, the stack's own payments with the sync off) share a controlled clock. Each interval, a
// connected active Stripe account is synced once between them (the official SDK against the
// loopback stand-in, the batches into the ledger's ingestion), a disabled one never; an account
// whose provider cannot be reached is recorded as failed and does not stop the other; a replica
// started again at the same time finds nothing due.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import { LedgerService } from '../proto/gen/svc/ledger/v1/ledger_pb.js';
import { ProviderAccountsService } from '../proto/gen/svc/routing/v1/provider_accounts_pb.js';
import { RoutingService } from '../proto/gen/svc/routing/v1/routing_pb.js';
import { PROVIDERS } from '../services/connectors/providers.js';
import * as payments from '../services/payments/index.js';
import { loadConfig } from '../services/platform/config.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { createLogger } from '../services/platform/logger.js';
import type { ServicePart } from '../services/platform/part.js';
import { createPeerTransport } from '../services/platform/rpc.js';
import { eventually } from './helpers/eventually.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';
import { STAND_IN_ORIGINS } from './helpers/stand-in-server.js';

const KEY_A = `sk_live_standin_${randomBytes(6).toString('hex')}`;
const KEY_B = `sk_live_standin_${randomBytes(6).toString('hex')}`;
const KEY_C = `sk_live_standin_${randomBytes(6).toString('hex')}`;
const PROVIDER_SECRET_KEY = randomBytes(32).toString('hex');
const INTERVAL_MS = 400;

describe('scheduled Stripe settlement sync', () => {
  let stack: TestStack;
  let stripe: StripeStandIn;
  let gone: StripeStandIn;
  const replicas: Array<{ part: ServicePart; pool: Pool }> = [];
  let nowMs = Date.parse('2026-03-02T06:00:00Z');
  const clock = { now: () => new Date(nowMs) };

  before(async () => {
    stripe = await startStripeStandIn({ secretKeys: [KEY_A, KEY_C] });
    gone = await startStripeStandIn({ secretKeys: [KEY_B] });
    stack = await startTestStack({ env: { PROVIDER_SECRET_KEY } });
  });
  after(async () => {
    for (const r of replicas) {
      await r.part.close();
      await r.pool.end();
    }
    await stack?.close();
    await stripe?.close();
    await gone?.close();
  });

  /** One more payments replica on the stack's database, with the sync every INTERVAL_MS of `clock`. */
  async function replica(): Promise<ServicePart> {
    const config = loadConfig({
      PROVIDER_SECRET_KEY,
      SETTLEMENT_SYNC_INTERVAL_MS: String(INTERVAL_MS),
      PROVIDER_BASE_URL_ALLOWLIST: STAND_IN_ORIGINS,
      INTERNAL_TOKEN: stack.internalToken,
      OUTBOX_POLL_MS: '50',
      NATS_STREAM: stack.testBus.nats?.stream,
      NATS_SUBJECT_PREFIX: stack.testBus.nats?.subjectPrefix,
    });
    const peer = (name: string) => createPeerTransport(stack.serviceUrls[name], stack.internalToken);
    const pool = createPool(stack.db.url, 'payments', 4);
    const part = payments.build({
      pool, bus: stack.testBus.bus, clock, logger: createLogger('test', 'silent'), config,
      routing: createClient(RoutingService, peer('routing-risk')),
      providerAccounts: createClient(ProviderAccountsService, peer('routing-risk')),
      ledger: createClient(LedgerService, peer('ledger')),
      providers: await payments.loadProviders(PROVIDERS),
    });
    replicas.push({ part, pool });
    await part.start();
    return part;
  }

  async function stripeMerchant(key: string, standIn: StripeStandIn) {
    const m = await stack.newMerchantKey('live');
    const res = await stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, {
      mode: 'live', provider: 'stripe', name: 'Stripe EU', fee_bps: 140, fee_fixed: 25,
      credentials: { secret_key: key, webhook_secret: 'whsec_live_standin', api_base_url: standIn.baseUrl },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return { ...m, accountId: res.body.id as string };
  }

  const payoutLists = (standIn: StripeStandIn, key = KEY_A) => standIn.requests
    .filter((q) => q.method === 'GET' && q.path === '/v1/payouts' && q.headers.authorization === `Bearer ${key}`).length;
  const syncRow = async (accountId: string) =>
    (await stack.query('SELECT * FROM payments.settlement_syncs WHERE provider_account_id = $1', [accountId])).rows[0];
  /** Long enough for several ticks of both replicas. */
  const ticks = () => new Promise((r) => setTimeout(r, INTERVAL_MS * 3));

  test('two replicas sync an account once per interval; a failing account does not stop another; a restart redoes nothing', async () => {
    const a = await stripeMerchant(KEY_A, stripe);
    const b = await stripeMerchant(KEY_B, gone);
    // A disabled account is connected still, and never synced.
    const c = await stripeMerchant(KEY_C, stripe);
    assert.equal((await stack.manage('POST', `/provider-accounts/${c.accountId}/disable`)).status, 200);
    const paid = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key: a.secret, body: { amount: 2500, currency: 'EUR', payment_method: { type: 'card', token: 'pm_card_visa' } },
    });
    assert.equal(paid.body.status, 'successful', JSON.stringify(paid.body));
    await eventually('the payment in the ledger', async () =>
      (await request(stack.baseUrl, 'GET', '/v1/transactions?status=successful', { key: a.secret })).body.data.length === 1 || undefined);
    const payout = stripe.payOut('eur');
    // B's provider is gone (sorted after or before A, it must not matter): every sync of B fails.
    await gone.close();

    const t0 = new Date(nowMs);
    await Promise.all([replica(), replica()]);
    const [s] = await eventually('the payout as a settlement', async () => {
      const { data } = (await request(stack.baseUrl, 'GET', '/v1/settlements', { key: a.secret })).body;
      return data.length > 0 ? data : undefined;
    });
    assert.deepEqual([s.settlement_reference, s.status, s.gross_amount, s.net_amount], [payout.id, 'settled', 2500, payout.amount]);
    await ticks();
    assert.equal(payoutLists(stripe), 1, 'one sync in the first interval, by one of the two replicas');
    const first = await syncRow(a.accountId);
    assert.deepEqual([first.synced_at.getTime(), first.synced_references, first.created], [t0.getTime(), [payout.id], 1]);
    assert.equal(first.due_at.getTime(), t0.getTime() + INTERVAL_MS);
    const failed = await eventually('B recorded as failed', async () => {
      const row = await syncRow(b.accountId);
      return row?.failed_at ? row : undefined;
    });
    assert.equal(failed.failed_at.getTime(), t0.getTime());
    assert.ok(failed.last_error && !failed.last_error.includes(KEY_B), 'why, without the key');
    assert.equal(failed.synced_at, null);

    // The next interval: once more between them, asking from 14 days before the last sync; nothing new.
    nowMs += INTERVAL_MS;
    await eventually('the second sync', async () => (payoutLists(stripe) === 2 || undefined));
    await ticks();
    assert.equal(payoutLists(stripe), 2, 'one sync in the second interval');
    const second = await syncRow(a.accountId);
    assert.deepEqual([second.synced_at.getTime(), second.created], [nowMs, 0]);
    const since = stripe.requests.filter((q) => q.path === '/v1/payouts').at(-1)!.query.get('created[gte]');
    assert.equal(Number(since), Math.floor((t0.getTime() - 14 * 86_400_000) / 1000));
    assert.equal((await syncRow(b.accountId)).failed_at.getTime(), nowMs, 'B was tried again, and failed again');
    assert.equal((await request(stack.baseUrl, 'GET', '/v1/settlements', { key: a.secret })).body.data.length, 1);
    assert.deepEqual([payoutLists(stripe, KEY_C), await syncRow(c.accountId)], [0, undefined], 'the disabled account was not synced');

    // Both replicas stop and one starts again at the same time: nothing is due, nothing is redone.
    for (const r of replicas.splice(0)) {
      await r.part.close();
      await r.pool.end();
    }
    await replica();
    await ticks();
    assert.equal(payoutLists(stripe), 2);
    assert.equal((await syncRow(a.accountId)).synced_at.getTime(), nowMs);
  });
});
