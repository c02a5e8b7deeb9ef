// The scheduled dispute sync (jobs/dispute-sync.ts) through the REST gateway, with Stripe's SDK
// pointed at its stand-in: a dispute whose notifications never arrived is found by the sync's read
// of Stripe's dispute events (DISPUTE_SYNC_INTERVAL_MS short here), opened with its funds
// withdrawn, then found won; the webhook that arrives late is the same event and changes nothing.
// Checkout.com's disputes are found by its list of disputes changed since the last sync.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eventually } from './helpers/eventually.js';
import { startLicensedProviderStack, type LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { liveKey, startCheckoutStandIn, type CheckoutStandIn } from './helpers/checkout-stand-in.js';
import { request } from './helpers/stack.js';
import { deliver, signed } from './helpers/stripe-events.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';

const KEY = `sk_live_standin_${randomBytes(8).toString('hex')}`;
const WEBHOOK_SECRET = `whsec_${randomBytes(24).toString('base64url')}`;
const CKO_KEY = liveKey();

describe('the dispute sync finds what notifications lost', () => {
  let stack: LicensedProviderStack;
  let stripe: StripeStandIn;
  let cko: CheckoutStandIn;

  before(async () => {
    stripe = await startStripeStandIn({ secretKeys: [KEY] });
    cko = await startCheckoutStandIn({ secretKeys: [CKO_KEY] });
    stack = await startLicensedProviderStack({
      env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex'), DISPUTE_SYNC_INTERVAL_MS: '1000' },
    });
  });
  after(async () => {
    await stack?.close();
    await stripe?.close();
    await cko?.close();
  });

  test('a Stripe dispute whose webhooks were lost is opened and closed by the sync, once', async () => {
    const m = await stack.newMerchantKey('live');
    const accountId = await stack.connectLive(m.projectId, {
      provider: 'stripe', name: 'Stripe EU', credentials: { secret_key: KEY, webhook_secret: WEBHOOK_SECRET, api_base_url: stripe.baseUrl },
    });
    const paid = await stack.pay(m.secret, { payment_method: { type: 'card', token: 'pm_card_visa' } });
    assert.equal(paid.body.status, 'successful', JSON.stringify(paid.body));
    const opened = stripe.openDispute(paid.body.attempts[0].provider_payment_id, 'duplicate');
    const get = (path: string) => request(stack.baseUrl, 'GET', path, { key: m.secret });

    const d = await eventually('the dispute found by the sync, its funds withdrawn', async () => {
      const found = (await get(`/v1/disputes?payment_id=${paid.body.id}`)).body.data?.[0];
      return found?.funds_withdrawn ? found : undefined;
    }, 15_000);
    assert.deepEqual([d.reason, d.status, d.funds_withdrawn, d.fee_amount], ['duplicate', 'needs_response', true, 1500]);
    // Recorded as the webhooks would have been: by Stripe's own event ids.
    const rows = async () => (await stack.query(
      'SELECT event_id, effect FROM payments.provider_notifications WHERE provider_account_id = $1 ORDER BY event_id', [accountId],
    )).rows;
    await eventually('both events recorded', async () => ((await rows()).length === 2 ? true : undefined));
    assert.deepEqual((await rows()).map((r) => r.event_id).sort(), opened.events.map((e) => e.id).sort());
    const sync = await stack.query('SELECT synced_at, last_error FROM payments.dispute_syncs WHERE provider_account_id = $1', [accountId]);
    assert.ok(sync.rows[0].synced_at instanceof Date);
    assert.equal(sync.rows[0].last_error, null);

    const decided = stripe.decideDispute(opened.dispute.id, 'won');
    const won = await eventually('the dispute won by the sync', async () => {
      const got = (await get(`/v1/disputes/${d.id}`)).body;
      return got.status === 'won' ? got : undefined;
    }, 15_000);
    assert.equal(won.funds_withdrawn, false);

    // Stripe's retries of the lost webhooks arrive at last: the same events, already recorded.
    for (const e of [...opened.events, ...decided]) {
      const res = await deliver(stack.baseUrl, accountId, signed({ id: e.id, json: e.json }, WEBHOOK_SECRET));
      assert.equal(res.status, 200);
      assert.equal(res.body.new_notifications, 0);
    }
    const moved = await stack.query('SELECT kind FROM payments.dispute_fund_movements WHERE dispute_id = $1 ORDER BY seq', [d.id]);
    assert.deepEqual(moved.rows.map((r) => r.kind), ['withdrawal', 'reinstatement']);
    // The sync asked for Stripe's dispute events, never all of them.
    const asked = stripe.requests.filter((r) => r.path === '/v1/events');
    assert.ok(asked.length >= 2);
    for (const r of asked) assert.ok(Object.values(r.params.types as object).every((t) => String(t).startsWith('charge.dispute.')));
  });

  test('a Checkout.com dispute whose webhooks were lost is found by its list of disputes, then found won', async () => {
    const m = await stack.newMerchantKey('live');
    await stack.connectLive(m.projectId, {
      provider: 'checkout', name: 'Checkout.com EU',
      credentials: { secret_key: CKO_KEY, processing_channel_id: 'pc_standinlive00000000000000', webhook_signature_key: 'k'.repeat(32), api_base_url: cko.baseUrl },
    });
    const paid = await stack.pay(m.secret, { payment_method: { type: 'card', token: 'tok_standin_card', provider_code: 'checkout' } });
    assert.equal(paid.body.status, 'successful', JSON.stringify(paid.body));
    const atCko = cko.openDispute(paid.body.attempts[0].provider_payment_id, 'fraudulent');
    const get = (path: string) => request(stack.baseUrl, 'GET', path, { key: m.secret });
    const d = await eventually('the Checkout.com dispute found by the sync', async () => (await get(`/v1/disputes?payment_id=${paid.body.id}`)).body.data?.[0], 15_000);
    assert.deepEqual([d.provider_dispute_id, d.reason, d.status, d.funds_withdrawn], [atCko.id, 'fraudulent', 'needs_response', true]);
    cko.decideDispute(atCko.id, 'won');
    await eventually('the Checkout.com dispute won by the sync', async () => ((await get(`/v1/disputes/${d.id}`)).body.status === 'won' ? true : undefined), 15_000);
    const moved = await stack.query('SELECT kind FROM payments.dispute_fund_movements WHERE dispute_id = $1 ORDER BY seq', [d.id]);
    assert.deepEqual(moved.rows.map((r) => r.kind), ['withdrawal', 'reinstatement']);
    assert.ok(cko.requests.some((r) => r.path === '/disputes' && r.query.get('from')));
  });
});
