// An unreadable answer relayed by a vault never decides an outcome (faults, third round, item 6):
// a card stored with Stripe's token (soft-declined there) and a vault's reference fails over to
// Adyen through Stripe's Forwarding API or Basis Theory's proxy, each vault pointed at its stand-in
// through a proxy that answers the forward with garbage (empty, `{}`, truncated, HTML, deciding
// fields missing, an unknown status) once. The forwarded attempt is never failed on it: Adyen is
// asked directly, without the card, and its truth decides; Adyen charged once.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startBasisTheoryStandIn, type BasisTheoryStandIn } from './helpers/basis-theory-stand-in.js';
import { GARBAGE, startGarblingProxy, type GarblingProxy, type Operation } from './helpers/garbled-answers.js';
import { request } from './helpers/stack.js';
import { MERCHANT_ACCOUNT, startForwardingWorld, uniqueCardNumber, type ForwardingWorld } from './helpers/vault-forwarding-world.js';

const SOFT_DECLINED = 'pm_card_chargeDeclined';
const BT_KEY = `key_prod_us_${Date.now()}`;
const BT_TOKEN = 'd2cbc1b4-5c3e-45e3-9289-a5d3ae4a5ddf';
const CARD = { number: uniqueCardNumber(), expMonth: '11', expYear: '2037', cvc: '7351', name: 'Ada Lovelace' };

type Vault = 'stripe' | 'basis_theory';

describe('an unreadable answer relayed by a vault never decides an outcome', () => {
  let world: ForwardingWorld;
  let bt: BasisTheoryStandIn;
  const proxy = {} as Record<Vault, GarblingProxy>;
  const FORWARD: Record<Vault, Operation> = {
    stripe: { method: 'POST', path: /^\/v1\/forwarding\/requests$/ },
    basis_theory: { method: 'POST', path: /^\/proxy$/ },
  };

  before(async () => {
    world = await startForwardingWorld({ tag: 'garbled', cards: { [SOFT_DECLINED]: CARD } });
    bt = await startBasisTheoryStandIn({ apiKeys: [BT_KEY] });
    bt.tokens.set(BT_TOKEN, { number: CARD.number, expiration_month: 11, expiration_year: 2037, cvc: CARD.cvc });
    proxy.stripe = await startGarblingProxy(world.stripe.baseUrl);
    proxy.basis_theory = await startGarblingProxy(bt.baseUrl);
  });
  after(async () => {
    await world?.close();
    await Promise.all([bt?.close(), ...Object.values(proxy).map((p) => p.close())]);
  });

  /** A live merchant with Stripe, Adyen and the vault (through its garbling proxy) forwarding to Adyen; its key. */
  async function merchant(vault: Vault): Promise<string> {
    const { stack, stripeKey, adyenKey } = world;
    const m = await stack.newMerchantKey('live');
    const connect = (body: Record<string, unknown>) => stack.connectLive(m.projectId, body);
    await connect({
      provider: 'stripe', name: 'Stripe EU', fee_bps: 100, fee_fixed: 5,
      credentials: { secret_key: stripeKey, webhook_secret: 'whsec_live_garbled', api_base_url: world.stripe.baseUrl },
    });
    await connect({
      provider: 'adyen', name: 'Adyen EU', fee_bps: 150, fee_fixed: 10,
      credentials: {
        api_key: adyenKey, merchant_account: MERCHANT_ACCOUNT, hmac_key: randomBytes(32).toString('hex').toUpperCase(),
        live_url_prefix: '1797a841fbb37ca7-AcmeECOM', api_base_url: world.adyen.baseUrl,
      },
    });
    await connect(vault === 'stripe'
      ? { provider: 'stripe_vault', name: 'Stripe vault', fee_fixed: 15, fee_bps: 0, credentials: { secret_key: stripeKey, destinations: 'adyen', api_base_url: proxy.stripe.baseUrl } }
      : { provider: 'basis_theory', name: 'Basis Theory', fee_fixed: 20, fee_bps: 0, credentials: { api_key: BT_KEY, destinations: 'adyen', api_base_url: proxy.basis_theory.baseUrl } });
    return m.secret;
  }

  /** A card holding Stripe's token and the vault's reference, paid. */
  async function payStored(key: string, vault: Vault) {
    const { baseUrl } = world.stack;
    const pm = await request(baseUrl, 'POST', '/v1/payment-methods', { key, body: { type: 'card', provider_token: SOFT_DECLINED, provider_code: 'stripe' } });
    assert.equal(pm.status, 201, JSON.stringify(pm.body));
    const token = vault === 'stripe' ? SOFT_DECLINED : BT_TOKEN;
    const added = await request(baseUrl, 'POST', `/v1/payment-methods/${pm.body.id}/credentials`, { key, body: { type: 'vault_token', token, vault } });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    return world.stack.pay(key, { amount: 2000, payment_method: { type: 'card', id: pm.body.id } });
  }

  for (const vault of ['stripe', 'basis_theory'] as const) {
    test(`${vault}: a forwarded answer that cannot be read is asked of Adyen directly; the payment succeeds, charged once`, async () => {
      const key = await merchant(vault);
      for (const garbage of GARBAGE) {
        const before = proxy[vault].garbled;
        proxy[vault].garbleNext(FORWARD[vault], garbage);
        const res = await payStored(key, vault);
        const what = `${vault}, ${garbage.name}: ${JSON.stringify(res.body)}`;
        assert.equal(proxy[vault].garbled, before + 1, `${what}: the garbage was answered`);
        assert.equal(res.body.status, 'successful', what);
        const forwarded = res.body.attempts[1];
        assert.deepEqual([forwarded.outcome, forwarded.path, forwarded.vault], ['success', 'forwarded', vault], what);
        assert.equal(res.body.attempts.length, 2, `${what}: no third attempt`);
        assert.equal([...world.adyen.payments.values()].filter((p) => p.reference === forwarded.id).length, 1, `${what}: one payment at Adyen`);
      }
    });
  }
});
