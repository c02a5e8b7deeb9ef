// Stripe Vault and Forward as a vault connection (vault-connection.ts): its secret key
// sealed, the providers it may forward a saved card to (`destinations`; Stripe must have enabled
// forwarding to each destination's endpoint for the account) and the account's fee charged per
// forwarded attempt. It takes no payment itself, so routing never plans its accounts
// (docs/connectors.md, "Vault connections"); destinations send a forwarded attempt through its
// forwarder (forwarding.ts).
import { STRIPE_OFFICIAL_HOST } from '../stripe/facts.js';
import { vaultChecks } from '../vault-connection.js';

// Stripe's keys say their mode: sk_test_… / sk_live_…, rk_test_… / rk_live_….
function keyMode(values: Record<string, string>, mode: string): [string, string] | undefined {
  const keyMode = /^[sr]k_(test|live)_/.exec(values.secret_key ?? '')?.[1];
  if (keyMode === undefined || keyMode === mode) return undefined;
  return ['secret_key', `secret_key is a Stripe ${keyMode} key but the vault connection is ${mode}; use a ${mode} key`];
}

export const stripeVaultFacts = vaultChecks({
  code: 'stripe_vault',
  name: 'Stripe Vault and Forward',
  vault: 'stripe',
  // A reference in Stripe's vault is a PaymentMethod, usable at Stripe directly.
  tokenIssuer: 'stripe',
  key: { name: 'secret_key', env: 'STRIPE_VAULT_SECRET_KEY' },
  officialHost: STRIPE_OFFICIAL_HOST,
  keyMismatch: keyMode,
});
