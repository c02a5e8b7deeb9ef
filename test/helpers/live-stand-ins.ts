// The world of the tests of live payments at licensed providers' stand-ins through the REST
// gateway: Stripe's stand-in, the stand-ins of the other providers under test, and a
// licensed-provider stack with a PROVIDER_SECRET_KEY of its own, so that accounts are connected
// through the management API with sealed credentials, as a merchant connects them.
import { randomBytes } from 'node:crypto';
import type { AdyenStandIn } from './adyen-stand-in.js';
import { startLicensedProviderStack, type LicensedProviderStack } from './licensed-provider-fixture.js';
import { startStripeStandIn, type StripeStandIn } from './stripe-stand-in.js';

type Closable = { close(): Promise<unknown> };

export type LiveStandIns<S> = S & {
  stack: LicensedProviderStack;
  stripe: StripeStandIn;
  /** The Stripe EU account's body (100 bps + 10, the cheapest, so tried first) at Stripe's stand-in. */
  stripeEu(webhookSecret?: string): Record<string, unknown>;
  /** Stops the stack, then the stand-ins in the order they were started. */
  close(): Promise<void>;
};

/**
 * Starts Stripe's stand-in (taking `stripeKey`), then the other stand-ins in the order given, then
 * the stack. What was started before a failure is stopped again before the error is thrown.
 */
export async function startLiveStandIns<S extends Record<string, Closable>>(
  stripeKey: string, others: { [K in keyof S]: () => Promise<S[K]> },
): Promise<LiveStandIns<S>> {
  const standIns: Closable[] = [];
  try {
    const stripe = await startStripeStandIn({ secretKeys: [stripeKey] });
    standIns.push(stripe);
    const started = {} as S;
    for (const name of Object.keys(others) as Array<keyof S>) {
      started[name] = await others[name]();
      standIns.push(started[name]);
    }
    const stack = await startLicensedProviderStack({ env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') } });
    return {
      ...started,
      stack,
      stripe,
      stripeEu: (webhookSecret = 'whsec_live_standin') => ({
        provider: 'stripe', name: 'Stripe EU', fee_bps: 100, fee_fixed: 10,
        credentials: { secret_key: stripeKey, webhook_secret: webhookSecret, api_base_url: stripe.baseUrl },
      }),
      async close() {
        await stack.close();
        for (const s of standIns) await s.close();
      },
    };
  } catch (err) {
    for (const s of standIns) await s.close().catch(() => undefined);
    throw err;
  }
}

/** The Adyen EU account's body (150 bps + 10) at Adyen's stand-in, with its live URL prefix. */
export function adyenEu(adyen: AdyenStandIn, credentials: { api_key: string; merchant_account: string; hmac_key: string }) {
  return {
    provider: 'adyen', name: 'Adyen EU', fee_bps: 150, fee_fixed: 10,
    credentials: { ...credentials, live_url_prefix: '1797a841fbb37ca7-AcmeECOM', api_base_url: adyen.baseUrl },
  };
}
