// Checkout.com as a destination of vault forwarding through the REST gateway
// with live keys: a project connects a Stripe account, a Checkout.com account and a Stripe vault
// forwarding to Checkout.com, each pointed at its stand-in. A Stripe-vaulted card soft-declined at
// Stripe is paid at Checkout.com through Stripe's Forwarding API (the stand-in alone holds the card
// and fills Checkout.com's raw-card source); its refund goes to Checkout.com directly; a lost
// forwarded answer is settled by Checkout.com's payment list, asked directly and without the card.
// Last, everything the stack wrote is searched for the card's data, and nothing is found.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../services/platform/logger.js';
import { cardDataIn, databaseText, streamText } from './helpers/card-data-grep.js';
import type { CheckoutStandIn } from './helpers/checkout-stand-in.js';
import { captureLogs } from './helpers/log-sink.js';
import { request } from './helpers/stack.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { startForwardingWorld, uniqueCardNumber, type ForwardingWorld, type VaultedTestCard } from './helpers/vault-forwarding-world.js';

// The stack publishes to real JetStream (the card-data grep reads its stream): CI's, or one of the file's own.
const { url: natsUrl } = await jetStreamForFile();

const VAULTED = 'pm_card_chargeDeclined';
const CARD: VaultedTestCard = { number: uniqueCardNumber(), expMonth: '11', expYear: '2037', cvc: '7351', name: 'Ada Lovelace' };

describe('vault forwarding: Stripe Vault and Forward to Checkout.com (stand-ins)', () => {
  let world: ForwardingWorld;
  let checkout: CheckoutStandIn;
  const logs = captureLogs();

  before(async () => {
    world = await startForwardingWorld({
      natsUrl,
      tag: 'ckofwd', cards: { [VAULTED]: CARD }, destination: 'checkout', logger: createLogger('test', 'debug', logs.stream),
    });
    checkout = world.checkout!;
  });
  after(async () => {
    await world?.close();
  });

  async function payVaulted(key: string) {
    const id = await world.storeVaulted(key, VAULTED);
    return world.stack.pay(key, { amount: 2000, payment_method: { type: 'card', id } });
  }
  /** What the Checkout.com stand-in received under our attempt id as Cko-Idempotency-Key. */
  const sentUnder = (key: string) => checkout.requests.filter((r) => r.headers['cko-idempotency-key'] === key);

  test('a soft decline at Stripe is paid at Checkout.com through Stripe\'s Forwarding API, the vault\'s fee in the attempt\'s; its refund goes to Checkout.com directly', async () => {
    const m = await world.merchant();
    const res = await payVaulted(m.secret);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    assert.equal(res.body.attempts.length, 2);
    const [first, second] = res.body.attempts;
    assert.deepEqual([first.provider_account_id, first.outcome, first.path], [m.stripeAccount, 'soft_decline', 'direct']);
    assert.deepEqual([second.provider_account_id, second.outcome, second.path, second.vault], [m.checkoutAccount, 'success', 'forwarded', 'stripe']);
    assert.match(second.provider_payment_id, /^pay_standin/);
    // Checkout.com's price (10 + 1.5 %) plus the vault's 15.
    assert.equal(second.fee_amount, 10 + 30 + 15);

    // Our request to Stripe's Forwarding API: Checkout.com's raw-card /payments with the card fields empty.
    const [fwd] = world.stripe.requests.filter((r) => r.path === '/v1/forwarding/requests' && r.headers['idempotency-key'] === `${second.id}-forward`);
    assert.ok(fwd, 'the attempt went through the Forwarding API');
    assert.equal(String(fwd.params.url), `${checkout.baseUrl}/payments`);
    const sentToVault = JSON.parse((fwd.params.request as { body: string }).body);
    assert.deepEqual(sentToVault.source, { type: 'card', number: '', expiry_month: '', expiry_year: '', cvv: '', name: '' });
    assert.equal(sentToVault.reference, second.id);
    assert.deepEqual(cardDataIn(fwd.body, CARD), []);

    // Checkout.com got the card only because the stand-in vault filled it, integers for the expiry.
    const [atCheckout] = sentUnder(second.id);
    assert.equal(atCheckout.path, '/payments');
    assert.equal(atCheckout.headers.authorization, `Bearer ${world.checkoutKey}`);
    assert.deepEqual(atCheckout.body.source, {
      type: 'card', number: CARD.number, expiry_month: Number(CARD.expMonth), expiry_year: Number(CARD.expYear), cvv: CARD.cvc, name: CARD.name,
    });
    assert.deepEqual([atCheckout.body.amount, atCheckout.body.currency], [2000, 'EUR']);

    const forwardsBefore = world.stripe.forwarded.length;
    const refund = await request(world.stack.baseUrl, 'POST', `/v1/payments/${res.body.id}/refund`, { key: m.secret, body: { amount: 500 } });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    assert.equal(refund.body.status, 'successful', JSON.stringify(refund.body));
    const [refundSent] = sentUnder(refund.body.id);
    assert.equal(refundSent.path, `/payments/${second.provider_payment_id}/refunds`);
    assert.equal(world.stripe.forwarded.length, forwardsBefore, 'a refund carries no card and goes direct');
  });

  test('a lost forwarded answer is settled by Checkout.com\'s payment list, asked directly and without the card: charged once', async () => {
    const m = await world.merchant();
    world.stripe.lostForwardAnswers.answers = 1;
    const res = await payVaulted(m.secret);
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    const second = res.body.attempts[1];
    assert.deepEqual([second.outcome, second.path], ['success', 'forwarded']);
    assert.equal(sentUnder(second.id).length, 1, 'only the forwarded request carried the attempt id as idempotency key');
    const lookups = checkout.requests.filter((r) => r.method === 'GET' && r.query.get('reference') === second.id);
    assert.equal(lookups.length, 1, 'one lookup by reference');
    assert.equal([...checkout.payments.values()].filter((p) => p.reference === second.id).length, 1, 'one payment at Checkout.com');
    const timeline = (await request(world.stack.baseUrl, 'GET', `/v1/payments/${res.body.id}/timeline`, { key: m.secret })).body.data;
    const checks = timeline.filter((t: any) => t.type === 'attempt.status_checked');
    assert.deepEqual(checks.map((t: any) => [t.data.found, t.data.outcome]), [[true, 'success']]);
  });

  test('nothing the stack wrote holds the card: database, event stream and logs; the same grep finds it in the stand-ins\' own records', async () => {
    assert.ok(world.stripe.forwarded.length >= 2, 'the tests above forwarded the card');
    await new Promise((r) => setTimeout(r, 500)); // the relay's last publications
    const written = { database: await databaseText(world.stack), stream: await streamText(world.stack), logs: logs.lines.join('') };
    // The stored vault reference is in the dump sealed only, with the provider credentials.
    assert.ok(written.database.includes('aes256gcm:') && written.logs.length > 0, 'the dump and the logs hold what the run wrote');
    assert.ok(!written.database.includes(VAULTED), 'the vault reference is not readable in the dump');
    for (const [where, text] of Object.entries(written)) assert.deepEqual(cardDataIn(text, CARD), [], `card data in the ${where}`);
    // The grep can fail: the stand-ins' own records hold the card.
    assert.deepEqual(cardDataIn(JSON.stringify(world.stripe.forwarded), CARD), ['number', 'cvc', 'expiry']);
  });
});
