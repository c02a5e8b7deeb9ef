// Stripe Vault and Forward as a vault connection (issue 25): connected like a provider account
// (per mode, its secret key sealed, a `test` call), with the providers it may forward a saved
// card to (`destinations`) and the account's fee charged per forwarded attempt. It takes no
// payment itself, so routing never plans its accounts (docs/connectors.md, "Vault connections");
// destinations send a forwarded attempt through its forwarder (forwarding.ts).
import type { ProviderDefinition } from '../provider-definition.js';
import { STRIPE_OFFICIAL_HOST } from '../stripe/client.js';
import { destinationsProblem } from '../vault-forwarding.js';
import { createStripeVaultConnector } from './connector.js';
import { createStripeForwarder } from './forwarding.js';

// Stripe's keys say their mode: sk_test_… / sk_live_…, rk_test_… / rk_live_….
function keyMode(values: Record<string, string>, mode: string): [string, string] | undefined {
  const keyMode = /^[sr]k_(test|live)_/.exec(values.secret_key ?? '')?.[1];
  if (keyMode !== undefined && keyMode !== mode) {
    return ['secret_key', `secret_key is a Stripe ${keyMode} key but the vault connection is ${mode}; use a ${mode} key`];
  }
  return destinationsProblem(values);
}

export const stripeVaultProvider: ProviderDefinition = {
  code: 'stripe_vault',
  name: 'Stripe Vault and Forward',
  // None: a vault connection is never a route of its own.
  methods: [],
  currencies: [],
  countries: [],
  capabilities: {
    settlementSync: false,
    settlementReports: false,
    notifications: false,
    vaultForwarding: false,
    vault: 'stripe',
  },
  credentialFields: [
    { name: 'secret_key', required: true, secret: true, env: 'STRIPE_VAULT_SECRET_KEY' },
    // The provider codes the vault may forward to, comma-separated (e.g. "adyen"); Stripe must have
    // enabled forwarding to each destination's endpoint for the account.
    { name: 'destinations', required: true, secret: false },
    { name: 'api_base_url', required: false, secret: false },
  ],
  officialHost: STRIPE_OFFICIAL_HOST,
  modeMismatch: keyMode,
  create: createStripeVaultConnector,
  forwarder: createStripeForwarder,
};
