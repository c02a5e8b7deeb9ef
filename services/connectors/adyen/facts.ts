// Adyen (its Checkout API): its facts and checks, plain code with no SDK (index.ts adds the
// connector loader).
import type { ProviderChecks } from '../provider-definition.js';

/** Adyen's Checkout hosts, test and per-merchant live: an api_base_url naming one is no detour. */
export const ADYEN_OFFICIAL_HOST = /^(checkout-test\.adyen\.com|[a-z0-9-]+-checkout-live\.adyenpayments\.com)$/;

// Adyen's live Checkout host is per merchant ({prefix}-checkout-live.adyenpayments.com): without the
// prefix a live account has no host to call, unless it is pointed elsewhere with api_base_url.
function adyenLiveHost(values: Record<string, string>, mode: string): [string, string] | undefined {
  if (mode !== 'live' || values.live_url_prefix !== undefined || values.api_base_url !== undefined) return undefined;
  return ['live_url_prefix', 'a live Adyen account needs live_url_prefix (Customer Area > Developers > API URLs)'];
}

/** The token as the paymentMethod object of Adyen's Drop-in or Components (JSON with a `type`), when it is one. */
export function browserPaymentMethod(token: string): { type: string } | undefined {
  if (!token.trimStart().startsWith('{')) return undefined;
  try {
    const pm = JSON.parse(token) as { type?: unknown };
    return pm && typeof pm.type === 'string' ? (pm as { type: string }) : undefined;
  } catch {
    return undefined;
  }
}

export const adyenFacts: ProviderChecks = {
  code: 'adyen',
  name: 'Adyen',
  methods: ['card', 'wallet'],
  currencies: [],
  countries: [],
  capabilities: {
    // Adyen's payouts need its Balance Platform, which a Checkout account's credentials do not
    // reach; its settlements come as uploaded settlement detail reports (docs/connectors.md).
    settlementSync: false,
    settlementReports: true,
    notifications: true,
    // Raw-card /payments through a connected vault (forwarded.ts).
    vaultForwarding: true,
  },
  credentialFields: [
    { name: 'api_key', required: true, secret: true, env: 'ADYEN_API_KEY' },
    { name: 'merchant_account', required: true, secret: false },
    { name: 'hmac_key', required: true, secret: true, env: 'ADYEN_HMAC_KEY' },
    { name: 'live_url_prefix', required: false, secret: false },
    { name: 'api_base_url', required: false, secret: false },
    // Basic auth is what Adyen's notification settings may add on top of the HMAC signature.
    { name: 'basic_auth_user', required: false, secret: false },
    { name: 'basic_auth_password', required: false, secret: true, env: 'ADYEN_BASIC_AUTH_PASSWORD' },
  ],
  officialHost: ADYEN_OFFICIAL_HOST,
  hostFields: {
    // Adyen's documented form, a random part and the company name joined by dashes
    // (1797a841fbb37ca7-AdyenDemo), short enough for one DNS label with "-checkout-live".
    live_url_prefix: {
      pattern: /^(?=.{3,49}$)[A-Za-z0-9]+(-[A-Za-z0-9]+)+$/,
      says: 'live_url_prefix is the prefix of your live API URLs (Customer Area > Developers > API URLs), such as 1797a841fbb37ca7-AdyenDemo: letters and digits joined by dashes',
    },
  },
  modeMismatch: adyenLiveHost,
  // The paymentMethod object Adyen's Drop-in or Components made in the customer's browser (encrypted
  // card fields); a stored method's id has no shape of its own, so it needs provider_code.
  issuedToken: (token) => browserPaymentMethod(token) !== undefined,
};
