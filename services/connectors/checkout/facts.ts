// Checkout.com (its unified payments API): its facts and checks, plain code with no SDK
// (index.ts adds the connector loader).
import type { ProviderChecks } from '../provider-definition.js';

export const CHECKOUT_OFFICIAL_HOST = /^((pl-)?[a-z0-9]+\.)?api\.(sandbox\.)?checkout\.com$/;

// Checkout.com's secret keys say their environment: sk_sbox_… (and the older sk_test_…) are
// sandbox keys, any other sk_… a production key.
function checkoutKeyMode(values: Record<string, string>, mode: string): [string, string] | undefined {
  const key = values.secret_key ?? '';
  if (!key.startsWith('sk_')) return undefined;
  const keyMode = /^sk_(sbox|test)_/.test(key) ? 'test' : 'live';
  if (keyMode === mode) return undefined;
  return ['secret_key', `secret_key is a Checkout.com ${keyMode === 'test' ? 'sandbox' : 'production'} key but the account is ${mode}; use a ${mode === 'test' ? 'sandbox' : 'production'} key`];
}

export const checkoutFacts: ProviderChecks = {
  code: 'checkout',
  name: 'Checkout.com',
  methods: ['card'],
  currencies: [],
  countries: [],
  capabilities: {
    // Card payouts and reconciliation reports exist at Checkout.com but are not built here yet
    // (README.md).
    settlementSync: false,
    settlementReports: false,
    notifications: true,
    vaultForwarding: true,
  },
  credentialFields: [
    { name: 'secret_key', required: true, secret: true, env: 'CHECKOUT_SECRET_KEY' },
    { name: 'processing_channel_id', required: true, secret: false },
    { name: 'webhook_signature_key', required: true, secret: true, env: 'CHECKOUT_WEBHOOK_SIGNATURE_KEY' },
    // The merchant-specific subdomain (Dashboard > Developers > Overview): without it the shared host is used.
    { name: 'subdomain', required: false, secret: false },
    { name: 'api_base_url', required: false, secret: false },
  ],
  officialHost: CHECKOUT_OFFICIAL_HOST,
  hostFields: {
    // The form the SDK itself accepts (EnvironmentSubdomain.isValidSubdomain): the client id without cli_.
    subdomain: {
      pattern: /^(?=.{1,63}$)(pl-)?[a-z0-9]+$/,
      says: 'subdomain is your merchant-specific subdomain (Dashboard > Developers > Overview), your client id without cli_: lowercase letters and digits',
    },
  },
  modeMismatch: checkoutKeyMode,
};
