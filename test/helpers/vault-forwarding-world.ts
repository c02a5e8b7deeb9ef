// The world of the vault-forwarding tests through the REST gateway with live keys: a
// Stripe stand-in (which is also Stripe's vault and Forwarding API) holding one card, an Adyen
// stand-in, and the stack; a live merchant connects Stripe (cheapest, tried first), Adyen and a
// Stripe vault forwarding to Adyen, and stores the vaulted card as a method holding Stripe's token
// and the vault's reference. With `destination: 'checkout'` a Checkout.com stand-in and account
// take Adyen's place as the vault's destination.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../services/platform/logger.js';
import { startAdyenStandIn, type AdyenStandIn } from './adyen-stand-in.js';
import { liveKey, startCheckoutStandIn, type CheckoutStandIn } from './checkout-stand-in.js';
import type { CardUnderTest } from './card-data-grep.js';
import { startLicensedProviderStack, type LicensedProviderStack } from './licensed-provider-fixture.js';
import { request } from './stack.js';
import { startStripeStandIn, type StripeStandIn } from './stripe-stand-in.js';

export const MERCHANT_ACCOUNT = 'AcmeECOM';

/** A card number of its own (valid check digit), so finding it anywhere can only mean this card. */
export function uniqueCardNumber(): string {
  const body = `5${Array.from(randomBytes(14), (b) => b % 10).join('')}`;
  for (let check = 0; check < 10; check++) {
    const n = `${body}${check}`;
    const sum = [...n].reverse().reduce((t, c, i) => {
      const d = Number(c) * (i % 2 === 1 ? 2 : 1);
      return t + (d > 9 ? d - 9 : d);
    }, 0);
    if (sum % 10 === 0) return n;
  }
  throw new Error('unreachable');
}

export type VaultedTestCard = CardUnderTest & { name: string };

export interface ForwardingWorld {
  stack: LicensedProviderStack;
  stripe: StripeStandIn;
  adyen: AdyenStandIn;
  stripeKey: string;
  adyenKey: string;
  /** Only with `destination: 'checkout'`. */
  checkout?: CheckoutStandIn;
  checkoutKey: string;
  /** A new live merchant with Stripe (100 bps + 5), Adyen (150 bps + 10) and a Stripe vault (15 per attempt) forwarding to Adyen. */
  merchant(): Promise<ForwardingMerchant>;
  /** Stores `token` as a card holding Stripe's token and the Stripe vault's reference; the method's id. */
  storeVaulted(key: string, token: string): Promise<string>;
  close(): Promise<void>;
}

export type ForwardingMerchant = Awaited<ReturnType<LicensedProviderStack['newMerchantKey']>> & {
  stripeAccount: string; adyenAccount: string; vaultAccount: string;
  /** With `destination: 'checkout'`: Checkout.com (150 bps + 10) in Adyen's place; adyenAccount is empty then. */
  checkoutAccount: string;
};

export const CHECKOUT_CHANNEL = 'pc_standinchannel0000000000';

export async function startForwardingWorld(opts: {
  tag: string; cards: Record<string, VaultedTestCard>; logger?: Logger; destination?: 'adyen' | 'checkout';
  /** The JetStream the stack publishes to (jetStreamForFile): the card-data grep reads its stream. */
  natsUrl?: string;
}): Promise<ForwardingWorld> {
  const destination = opts.destination ?? 'adyen';
  const checkoutKey = liveKey();
  const checkout = destination === 'checkout' ? await startCheckoutStandIn({ secretKeys: [checkoutKey] }) : undefined;
  const stripeKey = `sk_live_${opts.tag}_${Date.now()}`;
  const adyenKey = `AQE_live_${opts.tag}_${Date.now()}`;
  const stripe = await startStripeStandIn({ secretKeys: [stripeKey] });
  for (const [token, card] of Object.entries(opts.cards)) stripe.vaultedCards.set(token, card);
  const adyen = await startAdyenStandIn({ apiKeys: [adyenKey], merchantAccounts: [MERCHANT_ACCOUNT] });
  const stack = await startLicensedProviderStack({
    env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') }, ...(opts.logger && { logger: opts.logger }),
    natsUrl: opts.natsUrl,
  });

  async function merchant(): Promise<ForwardingMerchant> {
    const m = await stack.newMerchantKey('live');
    const connect = (body: Record<string, unknown>) => stack.connectLive(m.projectId, body);
    const stripeAccount = await connect({
      provider: 'stripe', name: 'Stripe EU', fee_bps: 100, fee_fixed: 5,
      credentials: { secret_key: stripeKey, webhook_secret: `whsec_live_${opts.tag}`, api_base_url: stripe.baseUrl },
    });
    if (checkout) {
      const checkoutAccount = await connect({
        provider: 'checkout', name: 'Checkout.com EU', fee_bps: 150, fee_fixed: 10,
        credentials: { secret_key: checkoutKey, processing_channel_id: CHECKOUT_CHANNEL, webhook_signature_key: randomBytes(16).toString('hex'), api_base_url: checkout.baseUrl },
      });
      const vaultAccount = await connect({
        provider: 'stripe_vault', name: 'Stripe vault', fee_fixed: 15, fee_bps: 0,
        credentials: { secret_key: stripeKey, destinations: 'checkout', api_base_url: stripe.baseUrl },
      });
      return { ...m, stripeAccount, adyenAccount: '', checkoutAccount, vaultAccount };
    }
    const adyenAccount = await connect({
      provider: 'adyen', name: 'Adyen EU', fee_bps: 150, fee_fixed: 10,
      credentials: {
        api_key: adyenKey, merchant_account: MERCHANT_ACCOUNT, hmac_key: randomBytes(32).toString('hex').toUpperCase(),
        live_url_prefix: '1797a841fbb37ca7-AcmeECOM', api_base_url: adyen.baseUrl,
      },
    });
    const vaultAccount = await connect({
      provider: 'stripe_vault', name: 'Stripe vault', fee_fixed: 15, fee_bps: 0,
      credentials: { secret_key: stripeKey, destinations: 'adyen', api_base_url: stripe.baseUrl },
    });
    return { ...m, stripeAccount, adyenAccount, checkoutAccount: '', vaultAccount };
  }

  async function storeVaulted(key: string, token: string): Promise<string> {
    const pm = await request(stack.baseUrl, 'POST', '/v1/payment-methods', {
      key, body: { type: 'card', provider_token: token, provider_code: 'stripe' },
    });
    assert.equal(pm.status, 201, JSON.stringify(pm.body));
    const vault = await request(stack.baseUrl, 'POST', `/v1/payment-methods/${pm.body.id}/credentials`, {
      key, body: { type: 'vault_token', token, vault: 'stripe' },
    });
    assert.equal(vault.status, 201, JSON.stringify(vault.body));
    return pm.body.id as string;
  }

  return {
    stack, stripe, adyen, stripeKey, adyenKey, checkout, checkoutKey, merchant, storeVaulted,
    async close() {
      await stack.close();
      await checkout?.close();
      await stripe.close();
      await adyen.close();
    },
  };
}
