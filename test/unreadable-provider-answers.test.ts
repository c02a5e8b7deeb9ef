// An unreadable provider answer never decides an outcome (faults, third round, item 6). Five live
// accounts in one project, each pointed at its provider's stand-in through a proxy that, when armed,
// lets the request reach the provider and answers it with garbage (empty, `{}`, truncated, HTML,
// deciding fields missing, an unknown status), with the official SDKs behind the shipped
// connectors, tried through the REST gateway: a payment, a refund, a capture and a release whose
// answer could not be read are never failed or declined on it; the provider is asked again and its
// truth decides (the provider acted once, the ledger moved once). A refund left unanswered twice
// stays `processing` and reconciliation settles it. Stripe's payouts, the one provider that pays
// out, are tried on the connector, whose unknown answer payouts then asks about (provider-payouts.test.ts).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startAdyenStandIn, type AdyenStandIn } from './helpers/adyen-stand-in.js';
import { liveKey as checkoutLiveKey, startCheckoutStandIn, type CheckoutStandIn } from './helpers/checkout-stand-in.js';
import { eventually } from './helpers/eventually.js';
import { GARBAGE, startGarblingProxy, type GarblingProxy, type Operation } from './helpers/garbled-answers.js';
import { startLicensedProviderStack, type LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { startMollieStandIn, type MollieStandIn } from './helpers/mollie-stand-in.js';
import { signedEvent as paypalEvent, startPayPalStandIn, type PayPalStandIn } from './helpers/paypal-stand-in.js';
import { deliverNotification } from './helpers/provider-notifications.js';
import { request } from './helpers/stack.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';
import { STAND_IN_ORIGINS } from './helpers/stand-in-server.js';
import { createStripeConnector } from '../services/connectors/stripe/connector.js';
import { newId } from '../services/platform/ids.js';

const STRIPE_KEY = `sk_live_standin_${randomBytes(8).toString('hex')}`;
const ADYEN_KEY = `AQE_live_standin_${randomBytes(8).toString('hex')}`;
const ADYEN_HMAC = randomBytes(32).toString('hex').toUpperCase();
const MERCHANT_ACCOUNT = 'AcmeECOM';
const CKO_KEY = checkoutLiveKey();
const PAYPAL_CLIENT = `ALive${randomBytes(12).toString('hex')}`;
const PAYPAL_SECRET = `ELive${randomBytes(12).toString('hex')}`;
const PAYPAL_WEBHOOK = `WH${randomBytes(8).toString('hex').toUpperCase()}`;
const MOLLIE_KEY = `live_${randomBytes(15).toString('hex')}`;
const RETURN_URL = 'https://shop.example/orders/done';
/** A provider call's deadline: reconciliation asks about a refund left open after 3 × this + 5 s. */
const PROVIDER_TIMEOUT_MS = 2_000;

type Provider = 'stripe' | 'adyen' | 'checkout' | 'paypal' | 'mollie';

const post = (method: string, path: RegExp): Operation => ({ method, path });

describe('an unreadable provider answer never decides an outcome', () => {
  let stack: LicensedProviderStack;
  let stripe: StripeStandIn;
  let adyen: AdyenStandIn;
  let cko: CheckoutStandIn;
  let pp: PayPalStandIn;
  let mollie: MollieStandIn;
  const proxy = {} as Record<Provider, GarblingProxy>;
  const account = {} as Record<Provider, string>;
  let key: string;

  before(async () => {
    stripe = await startStripeStandIn({ secretKeys: [STRIPE_KEY] });
    adyen = await startAdyenStandIn({ apiKeys: [ADYEN_KEY], merchantAccounts: [MERCHANT_ACCOUNT] });
    cko = await startCheckoutStandIn({ secretKeys: [CKO_KEY] });
    pp = await startPayPalStandIn({ clients: { [PAYPAL_CLIENT]: PAYPAL_SECRET }, webhookIds: { [PAYPAL_CLIENT]: PAYPAL_WEBHOOK } });
    mollie = await startMollieStandIn({ apiKeys: [MOLLIE_KEY] });
    for (const [p, s] of [['stripe', stripe], ['adyen', adyen], ['checkout', cko], ['paypal', pp], ['mollie', mollie]] as const) {
      proxy[p] = await startGarblingProxy(s.baseUrl);
    }
    stack = await startLicensedProviderStack({
      env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex'), PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS), RECONCILIATION_SWEEP_MS: '500' },
    });
    const m = await stack.newMerchantKey('live');
    key = m.secret;
    const connect = (provider: Provider, feeBps: number, credentials: Record<string, string>) =>
      stack.connectLive(m.projectId, { provider, name: `${provider} live`, fee_bps: feeBps, fee_fixed: 25, credentials: { ...credentials, api_base_url: proxy[provider].baseUrl } });
    account.stripe = await connect('stripe', 140, { secret_key: STRIPE_KEY, webhook_secret: `whsec_${randomBytes(24).toString('base64url')}` });
    account.adyen = await connect('adyen', 150, {
      api_key: ADYEN_KEY, merchant_account: MERCHANT_ACCOUNT, hmac_key: ADYEN_HMAC, live_url_prefix: '1797a841fbb37ca7-AcmeECOM',
    });
    account.checkout = await connect('checkout', 160, {
      secret_key: CKO_KEY, processing_channel_id: 'pc_standinlive00000000000000', webhook_signature_key: randomBytes(32).toString('hex'),
    });
    account.paypal = await connect('paypal', 290, { client_id: PAYPAL_CLIENT, client_secret: PAYPAL_SECRET, webhook_id: PAYPAL_WEBHOOK });
    account.mollie = await connect('mollie', 30, { api_key: MOLLIE_KEY, webhook_base_url: stack.baseUrl });
  });
  after(async () => {
    await stack?.close();
    await Promise.all([...Object.values(proxy).map((p) => p.close()), stripe?.close(), adyen?.close(), cko?.close(), pp?.close(), mollie?.close()]);
  });

  const get = (path: string) => request(stack.baseUrl, 'GET', path, { key });
  const send = (path: string, body: Record<string, unknown>) =>
    request(stack.baseUrl, 'POST', path, { key, body, headers: { 'Idempotency-Key': randomBytes(8).toString('hex') } });
  const statusOf = async (paymentId: string) => (await get(`/v1/payments/${paymentId}`)).body.status as string;
  const movementsOf = async (entityId: string) =>
    ((await get('/v1/transactions?limit=100')).body.data as any[]).filter((t) => t.entity_id === entityId).map((t) => [t.type, t.amount]);
  const cents = (v: string) => Math.round(Number(v) * 100);

  /** Each provider's operations as its connector calls them, how it is paid, and what it made. */
  interface Case {
    provider: Provider;
    authorize: Operation;
    refund: Operation;
    capture?: Operation;
    cancel?: Operation;
    /** A payment method this provider answers at once (card) or after its page (the others). */
    method: Record<string, unknown>;
    /** The payment's outcome when the provider has answered: what the truth looks like here. */
    answered: 'successful' | 'processing';
    /** How many payments the provider made for an attempt. */
    madeFor(attempt: any): number;
    /** A payment the provider took (completed by its page and notification where it has one). */
    take(): Promise<any>;
    /** Minor units the provider refunded of a payment. */
    refundedAt(payment: any): number;
    /** Minor units the provider captured of a held payment (holding providers). */
    capturedAt?(payment: any): number;
  }

  const card = (token: string, provider: Provider) => ({ type: 'card', token, provider_code: provider });
  const pspOf = (payment: any) => payment.attempts.at(-1).provider_payment_id as string;

  async function payAtOnce(c: Case, extra: Record<string, unknown> = {}): Promise<any> {
    const res = await send('/v1/payments', { amount: 5000, currency: 'EUR', payment_method: c.method, return_url: RETURN_URL, ...extra });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  }

  const CASES: Case[] = [
    {
      provider: 'stripe',
      authorize: post('POST', /^\/v1\/payment_intents$/),
      refund: post('POST', /^\/v1\/refunds$/),
      capture: post('POST', /^\/v1\/payment_intents\/[^/]+\/capture$/),
      cancel: post('POST', /^\/v1\/payment_intents\/[^/]+\/cancel$/),
      method: card('pm_card_visa', 'stripe'),
      answered: 'successful',
      madeFor: (a) => [...stripe.intents.values()].filter((pi) => (pi.metadata as any).attempt_id === a.id).length,
      take() { return payAtOnce(this); },
      refundedAt: (p) => [...stripe.refunds.values()].filter((r) => r.payment_intent === pspOf(p)).reduce((s, r) => s + Number(r.amount), 0),
      capturedAt: (p) => Number(stripe.intents.get(pspOf(p))!.amount_received),
    },
    {
      provider: 'adyen',
      authorize: post('POST', /\/payments$/),
      refund: post('POST', /\/refunds$/),
      capture: post('POST', /\/captures$/),
      cancel: post('POST', /\/cancels$/),
      method: card('8415718415172200', 'adyen'),
      answered: 'successful',
      madeFor: (a) => [...adyen.payments.values()].filter((p) => p.reference === a.id).length,
      take() { return payAtOnce(this); },
      refundedAt: (p) => adyen.payments.get(pspOf(p))!.refunded,
      capturedAt: (p) => adyen.payments.get(pspOf(p))!.captured,
    },
    {
      provider: 'checkout',
      authorize: post('POST', /^\/payments$/),
      refund: post('POST', /^\/payments\/[^/]+\/refunds$/),
      capture: post('POST', /^\/payments\/[^/]+\/captures$/),
      cancel: post('POST', /^\/payments\/[^/]+\/voids$/),
      method: card('tok_standin_card', 'checkout'),
      answered: 'successful',
      madeFor: (a) => [...cko.payments.values()].filter((p) => p.reference === a.id).length,
      take() { return payAtOnce(this); },
      refundedAt: (p) => cko.payments.get(pspOf(p))!.refunded,
      capturedAt: (p) => cko.payments.get(pspOf(p))!.captured,
    },
    {
      provider: 'paypal',
      authorize: post('POST', /^\/v2\/checkout\/orders$/),
      refund: post('POST', /^\/v2\/payments\/captures\/[^/]+\/refund$/),
      method: { type: 'wallet', provider_code: 'paypal' },
      answered: 'processing',
      madeFor: (a) => [...pp.orders.values()].filter((o) => o.purchase_units[0].custom_id === a.id).length,
      async take() {
        const p = await payAtOnce(this);
        const order = pp.approve(pspOf(p));
        const approved = paypalEvent('CHECKOUT.ORDER.APPROVED', { ...order }, PAYPAL_WEBHOOK);
        assert.equal((await deliverNotification(stack.baseUrl, 'paypal', account.paypal, approved)).status, 200);
        return p;
      },
      refundedAt: (p) => ((pp.orders.get(pspOf(p))!.purchase_units[0].payments?.refunds ?? []) as any[]).reduce((s, r) => s + cents(r.amount.value), 0),
    },
    {
      provider: 'mollie',
      authorize: post('POST', /^\/v2\/payments$/),
      refund: post('POST', /^\/v2\/payments\/[^/]+\/refunds$/),
      method: { type: 'local', token: 'ideal', provider_code: 'mollie' },
      answered: 'processing',
      madeFor: (a) => [...mollie.payments.values()].filter((p) => (p.metadata as any)?.attempt_id === a.id).length,
      async take() {
        const p = await payAtOnce(this);
        mollie.setStatus(pspOf(p), 'paid');
        const form = { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ id: pspOf(p) }).toString() };
        assert.equal((await deliverNotification(stack.baseUrl, 'mollie', account.mollie, form)).status, 200);
        return p;
      },
      refundedAt: (p) => cents(mollie.payments.get(pspOf(p))!.amountRefunded.value),
    },
  ];

  for (const c of CASES) {
    test(`${c.provider}: a payment whose answer cannot be read is asked about, never failed on it`, async () => {
      for (const garbage of GARBAGE) {
        const before = proxy[c.provider].garbled;
        proxy[c.provider].garbleNext(c.authorize, garbage);
        const p = await payAtOnce(c);
        const what = `${c.provider}, ${garbage.name}: ${JSON.stringify(p)}`;
        assert.equal(proxy[c.provider].garbled, before + 1, `${what}: the garbage was answered`);
        assert.equal(p.status, c.answered, what);
        assert.equal(p.attempts.length, 1, `${what}: no failover on an answer that decides nothing`);
        const [attempt] = p.attempts;
        assert.ok(!['hard_decline', 'soft_decline', 'technical_error'].includes(attempt.outcome), what);
        assert.equal(c.madeFor(attempt), 1, `${what}: the provider made the payment once`);
      }
    });

    test(`${c.provider}: a refund whose answer cannot be read is asked again at once, refunded once, moved in the ledger once`, async () => {
      const p = await c.take();
      await eventually(`${c.provider}'s payment taken`, async () => ((await statusOf(p.id)) === 'successful' ? true : undefined));
      const refunds: string[] = [];
      for (const garbage of GARBAGE) {
        const before = proxy[c.provider].garbled;
        proxy[c.provider].garbleNext(c.refund, garbage);
        const r = await send(`/v1/payments/${p.id}/refund`, { amount: 100 });
        const what = `${c.provider}, ${garbage.name}: ${JSON.stringify(r.body)}`;
        assert.equal(proxy[c.provider].garbled, before + 1, `${what}: the garbage was answered`);
        assert.equal(r.body.status, 'successful', what);
        // Read from the provider's real answer: a success decided on garbage would name no refund.
        assert.ok(r.body.provider_refund_id, `${what}: the provider's refund id`);
        refunds.push(r.body.id);
        assert.equal(c.refundedAt(p), 100 * refunds.length, `${what}: the provider refunded each refund once`);
      }
      assert.equal(await statusOf(p.id), 'partially_refunded');
      for (const id of refunds) {
        const moved = await eventually(`refund ${id} in the ledger`, async () => {
          const m = await movementsOf(id);
          return m.length > 0 ? m : undefined;
        });
        assert.equal(moved.length, 1, `${c.provider} ${id}: ${JSON.stringify(moved)}`);
      }
    });

    if (c.capture && c.cancel) {
      test(`${c.provider}: a capture and a release whose answers cannot be read are asked again, never declined on them`, async () => {
        for (const [i, garbage] of GARBAGE.entries()) {
          const op = i % 2 === 0 ? 'capture' : 'cancel';
          const p = await payAtOnce(c, { capture_method: 'manual' });
          assert.equal(p.status, 'authorized', JSON.stringify(p));
          proxy[c.provider].garbleNext(c[op]!, garbage);
          const res = await send(`/v1/payments/${p.id}/${op}`, {});
          const what = `${c.provider} ${op}, ${garbage.name}: ${JSON.stringify(res.body)}`;
          assert.equal(res.status, 200, what);
          assert.equal(res.body.status, op === 'capture' ? 'captured' : 'cancelled', what);
          assert.equal(proxy[c.provider].armed(), false, `${what}: the garbage was answered`);
          assert.equal(c.capturedAt!(p), op === 'capture' ? 5000 : 0, `${what}: captured once, or nothing`);
        }
      });
    }
  }

  test('a refund no answer of which can be read stays processing, and reconciliation settles it by asking again', async () => {
    const c = CASES[0];
    const p = await c.take();
    proxy.stripe.garbleNext(c.refund, GARBAGE[1], 2);
    const r = await send(`/v1/payments/${p.id}/refund`, { amount: 700 });
    assert.equal(r.body.status, 'processing', JSON.stringify(r.body));
    assert.equal(c.refundedAt(p), 700, 'Stripe had refunded');
    const settled = await eventually('the refund settled by reconciliation', async () => {
      const got = await get(`/v1/refunds/${r.body.id}`);
      return got.body.status === 'processing' ? undefined : got.body;
    }, 60_000);
    assert.equal(settled.status, 'successful', JSON.stringify(settled));
    assert.equal(c.refundedAt(p), 700, 'refunded once');
    assert.equal(await statusOf(p.id), 'partially_refunded');
    await eventually('the refund in the ledger', async () => ((await movementsOf(r.body.id)).length === 1 ? true : undefined));
  });

  test('stripe payouts: an unreadable answer is no answer, never a failed payout; the status query tells the truth', async () => {
    const connector = createStripeConnector({
      credentials: { get: async () => ({ mode: 'live', values: { secret_key: STRIPE_KEY, api_base_url: proxy.stripe.baseUrl } }) },
      network: { allowlist: [STAND_IN_ORIGINS] },
    });
    const ref = { providerCode: 'stripe', id: 'pac_stripe_payouts' };
    for (const garbage of GARBAGE) {
      const payoutId = newId('po');
      proxy.stripe.garbleNext(post('POST', /^\/v1\/payouts$/), garbage);
      const destination = { type: 'bank_account', token: 'ba_standin', holderName: null, country: 'DE' };
      // Thrown or `timeout`: both are "no answer", which payouts asks about (provider-payouts/service.ts).
      const answered = await connector.payout!({ account: ref, payoutId, amount: 1000n, currency: 'EUR', destination, signal: AbortSignal.timeout(10_000) })
        .then((r) => r.outcome, () => 'no answer');
      assert.ok(['no answer', 'timeout'].includes(answered), `${garbage.name}: ${answered} read from garbage`);
      const status = await connector.payoutStatus!({ account: ref, payoutId, providerPayoutId: null, currency: 'EUR', signal: AbortSignal.timeout(10_000) });
      assert.equal(status.found, true, garbage.name);
      assert.equal(status.found && status.outcome, 'pending', garbage.name);
      assert.equal([...stripe.payouts.values()].filter((po) => (po.metadata as any)?.payout_id === payoutId).length, 1, `${garbage.name}: paid out once`);
    }
  });
});
