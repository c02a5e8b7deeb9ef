// Stripe, its facts and checks: plain code, no SDK (index.ts adds the connector loader).
import type { ProviderChecks } from '../provider-definition.js';

/** Stripe's documented API host: an api_base_url naming it is no detour (provider-base-url.ts). */
export const STRIPE_OFFICIAL_HOST = /^api\.stripe\.com$/;

// Stripe's secret and restricted keys say their mode: sk_test_… / sk_live_…, rk_test_… / rk_live_….
function stripeKeyMode(values: Record<string, string>, mode: string): [string, string] | undefined {
  const keyMode = /^[sr]k_(test|live)_/.exec(values.secret_key ?? '')?.[1];
  if (keyMode === undefined || keyMode === mode) return undefined;
  return ['secret_key', `secret_key is a Stripe ${keyMode} key but the account is ${mode}; use a ${mode} key`];
}

export const stripeFacts: ProviderChecks = {
  code: 'stripe',
  name: 'Stripe',
  methods: ['card', 'wallet'],
  currencies: [],
  countries: [],
  capabilities: {
    // Stripe pays out a Stripe account's balance to its external accounts (bank accounts and debit
    // cards) at no per-payout price of its own for standard payouts.
    payouts: { destinationTypes: ['bank_account', 'card_token'], feeFixed: 0, feeBps: 0 },
    settlementSync: true,
    settlementReports: false,
    notifications: true,
    vaultForwarding: false,
  },
  credentialFields: [
    { name: 'secret_key', required: true, secret: true, env: 'STRIPE_SECRET_KEY' },
    { name: 'webhook_secret', required: true, secret: true, env: 'STRIPE_WEBHOOK_SECRET' },
    { name: 'api_base_url', required: false, secret: false },
  ],
  officialHost: STRIPE_OFFICIAL_HOST,
  modeMismatch: stripeKeyMode,
  // What the connector sends as the PaymentIntent's payment_method: a PaymentMethod (pm_…), or the
  // older Card and Source objects that parameter still accepts (card_…, src_…).
  issuedToken: (token) => /^(pm|card|src)_[A-Za-z0-9_]+$/.test(token),
};
