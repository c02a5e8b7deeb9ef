// Vault forwarding through the REST gateway with live keys: a project connects a
// Stripe account, an Adyen account and a Stripe vault (Stripe Vault and Forward) forwarding to
// Adyen, each pointed at its stand-in. A Stripe-vaulted card soft-declined at Stripe is paid at
// Adyen through Stripe's Forwarding API (the official SDK against the Stripe stand-in, which alone
// holds the card and inserts it into Adyen's raw-card request); its refund and capture go to
// Adyen directly; a lost forwarded answer is settled by one direct status query, without the card.
// Last, everything the stack wrote is searched for the card's data, and nothing is found.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../services/platform/logger.js';
import type { AdyenStandIn } from './helpers/adyen-stand-in.js';
import { cardDataIn, databaseText, streamText } from './helpers/card-data-grep.js';
import { sentUnder } from './helpers/connector-requests.js';
import type { LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { captureLogs } from './helpers/log-sink.js';
import { request } from './helpers/stack.js';
import type { StripeStandIn } from './helpers/stripe-stand-in.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { startForwardingWorld, uniqueCardNumber, type ForwardingWorld, type VaultedTestCard } from './helpers/vault-forwarding-world.js';

// The stack publishes to real JetStream (the card-data grep reads its stream): CI's, or one of the file's own.
const { url: natsUrl } = await jetStreamForFile();

const VAULTED = 'pm_card_chargeDeclined';
const CARD: VaultedTestCard = { number: uniqueCardNumber(), expMonth: '11', expYear: '2037', cvc: '7351', name: 'Ada Lovelace' };

describe('vault forwarding: Stripe Vault and Forward to Adyen (stand-ins)', () => {
  let world: ForwardingWorld;
  let stack: LicensedProviderStack;
  let stripe: StripeStandIn;
  let adyen: AdyenStandIn;
  let STRIPE_KEY: string;
  let ADYEN_KEY: string;
  const logs = captureLogs();

  before(async () => {
    world = await startForwardingWorld({ natsUrl, tag: 'fwd', cards: { [VAULTED]: CARD }, logger: createLogger('test', 'debug', logs.stream) });
    ({ stack, stripe, adyen, stripeKey: STRIPE_KEY, adyenKey: ADYEN_KEY } = world);
  });
  after(async () => {
    await world?.close();
  });

  const merchant = () => world.merchant();

  /** A stored card: Stripe's token of the vaulted PaymentMethod, and the same PaymentMethod as the Stripe vault's reference. */
  async function payVaulted(key: string, body: Record<string, unknown> = {}) {
    const id = await world.storeVaulted(key, VAULTED);
    return stack.pay(key, { amount: 2000, payment_method: { type: 'card', id }, ...body });
  }

  test('a soft decline at Stripe is paid at Adyen through Stripe\'s Forwarding API, the vault\'s fee in the attempt\'s; its refund goes to Adyen directly', async () => {
    const m = await merchant();
    const res = await payVaulted(m.secret);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    const [first, second] = res.body.attempts;
    assert.equal(res.body.attempts.length, 2);
    assert.deepEqual([first.provider_account_id, first.outcome, first.path, first.vault], [m.stripeAccount, 'soft_decline', 'direct', null]);
    assert.deepEqual([second.provider_account_id, second.outcome, second.path, second.vault], [m.adyenAccount, 'success', 'forwarded', 'stripe']);
    assert.match(second.provider_payment_id, /^STANDIN/);
    // Adyen's price (10 + 1.5 %) plus the vault's 15.
    assert.equal(second.fee_amount, 10 + 30 + 15);
    assert.deepEqual(res.body.route.skipped, []);

    // Our request to Stripe's Forwarding API: Adyen's raw-card /payments with the card fields empty.
    const [fwd] = stripe.requests.filter((r) => r.path === '/v1/forwarding/requests' && r.headers['idempotency-key'] === `${second.id}-forward`);
    assert.ok(fwd, 'the attempt went through the Forwarding API');
    assert.equal(fwd.headers.authorization, `Bearer ${STRIPE_KEY}`);
    assert.equal(fwd.params.payment_method, VAULTED);
    assert.match(String(fwd.params.url), new RegExp(`^${adyen.baseUrl}/checkout/v\\d+/payments$`));
    assert.deepEqual(Object.values(fwd.params.replacements as object), ['card_number', 'card_expiry', 'card_cvc', 'cardholder_name']);
    const sentToVault = JSON.parse((fwd.params.request as { body: string }).body);
    assert.deepEqual(sentToVault.paymentMethod, { type: 'scheme', number: '', expiryMonth: '', expiryYear: '', cvc: '', holderName: '' });
    assert.equal(sentToVault.reference, second.id);
    assert.deepEqual(cardDataIn(fwd.body, CARD), []);

    // Adyen got the card only because the stand-in vault inserted it, under our attempt id.
    const [atAdyen] = sentUnder(adyen.requests, second.id);
    assert.equal(atAdyen.path, '/payments');
    assert.equal(atAdyen.headers['x-api-key'], ADYEN_KEY);
    assert.deepEqual((atAdyen.body as any).paymentMethod, {
      type: 'scheme', number: CARD.number, expiryMonth: CARD.expMonth, expiryYear: CARD.expYear, cvc: CARD.cvc, holderName: CARD.name,
    });
    assert.deepEqual((atAdyen.body as any).amount, { currency: 'EUR', value: 2000 });

    const timeline = (await request(stack.baseUrl, 'GET', `/v1/payments/${res.body.id}/timeline`, { key: m.secret })).body.data;
    const started = timeline.filter((t: any) => t.type === 'attempt.started').map((t: any) => [t.data.path, t.data.vault]);
    assert.deepEqual(started, [['direct', undefined], ['forwarded', 'stripe']]);

    const forwardsBefore = stripe.forwarded.length;
    const refund = await request(stack.baseUrl, 'POST', `/v1/payments/${res.body.id}/refund`, { key: m.secret, body: { amount: 500 } });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    assert.equal(refund.body.status, 'successful', JSON.stringify(refund.body));
    const [refundSent] = sentUnder(adyen.requests, refund.body.id);
    assert.equal(refundSent.path, `/payments/${second.provider_payment_id}/refunds`);
    assert.equal(stripe.forwarded.length, forwardsBefore, 'a refund carries no card and goes direct');
  });

  test('a forwarded authorization is captured at Adyen directly, by its pspReference', async () => {
    const m = await merchant();
    const res = await payVaulted(m.secret, { capture_method: 'manual' });
    assert.equal(res.body.status, 'authorized', JSON.stringify(res.body));
    const held = res.body.attempts[1];
    assert.equal(held.path, 'forwarded');
    const forwardsBefore = stripe.forwarded.length;
    const capture = await request(stack.baseUrl, 'POST', `/v1/payments/${res.body.id}/capture`, { key: m.secret, body: { amount: 1500 } });
    assert.equal(capture.status, 200, JSON.stringify(capture.body));
    const captured = adyen.requests.filter((r) => r.path === `/payments/${held.provider_payment_id}/captures`);
    assert.equal(captured.length, 1);
    assert.deepEqual((captured[0].body as any).amount, { currency: 'EUR', value: 1500 });
    assert.equal(stripe.forwarded.length, forwardsBefore);
  });

  test('a lost forwarded answer is settled by one status query to Adyen, directly and without the card: charged once', async () => {
    const m = await merchant();
    stripe.lostForwardAnswers.answers = 1;
    const res = await payVaulted(m.secret);
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    const second = res.body.attempts[1];
    assert.deepEqual([second.outcome, second.path], ['success', 'forwarded']);
    const sent = sentUnder(adyen.requests, second.id);
    assert.equal(sent.length, 2, 'the forwarded request, then the status query');
    assert.equal((sent[1].body as any).paymentMethod.number, '', 'the status query holds no card');
    assert.equal([...adyen.payments.values()].filter((p) => p.reference === second.id).length, 1, 'one payment at Adyen');
    const timeline = (await request(stack.baseUrl, 'GET', `/v1/payments/${res.body.id}/timeline`, { key: m.secret })).body.data;
    const checks = timeline.filter((t: any) => t.type === 'attempt.status_checked');
    assert.deepEqual(checks.map((t: any) => [t.data.found, t.data.outcome]), [[true, 'success']]);
  });

  test('a forward the vault refuses never reached Adyen: the direct status query says so, and nothing is charged', async () => {
    const m = await merchant();
    stripe.vaultedCards.delete(VAULTED);
    try {
      const res = await payVaulted(m.secret);
      assert.equal(res.body.status, 'failed', JSON.stringify(res.body));
      const second = res.body.attempts[1];
      assert.deepEqual([second.outcome, second.path], ['timeout', 'forwarded']);
      assert.equal([...adyen.payments.values()].filter((p) => p.reference === second.id).length, 0);
      const timeline = (await request(stack.baseUrl, 'GET', `/v1/payments/${res.body.id}/timeline`, { key: m.secret })).body.data;
      const checks = timeline.filter((t: any) => t.type === 'attempt.status_checked');
      assert.deepEqual(checks.map((t: any) => t.data.found), [false]);
    } finally {
      stripe.vaultedCards.set(VAULTED, CARD);
    }
  });

  test('nothing the stack wrote holds the card: database, event stream and logs; the same grep finds it in the stand-in\'s own record', async () => {
    assert.ok(stripe.forwarded.length >= 3, 'the tests above forwarded the card');
    await new Promise((r) => setTimeout(r, 500)); // the relay's last publications
    const written = { database: await databaseText(stack), stream: await streamText(stack), logs: logs.lines.join('') };
    // The stored vault reference is in the dump sealed only, with the provider credentials.
    assert.ok(written.database.includes('aes256gcm:') && written.logs.length > 0, 'the dump and the logs hold what the run wrote');
    assert.ok(!written.database.includes(VAULTED), 'the vault reference is not readable in the dump');
    for (const [where, text] of Object.entries(written)) assert.deepEqual(cardDataIn(text, CARD), [], `card data in the ${where}`);
    // The grep can fail: the stand-ins' own records hold the card.
    assert.deepEqual(cardDataIn(JSON.stringify(stripe.forwarded), CARD), ['number', 'cvc', 'expiry']);
    assert.deepEqual(cardDataIn(JSON.stringify(adyen.requests.map((r) => r.body)), CARD), ['number', 'cvc', 'expiry']);
  });
});
