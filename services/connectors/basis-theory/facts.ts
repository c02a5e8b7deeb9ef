// Basis Theory as a vault connection, built like the Stripe vault (vault-connection.ts):
// its private API key sealed, the providers it may forward a token's card to (`destinations`) and
// the account's fee per forwarded attempt. It takes no payment itself, so routing never plans its
// accounts (docs/connectors.md, "Vault connections"); destinations send a forwarded attempt through
// its forwarder (proxy.ts).
import { vaultChecks } from '../vault-connection.js';

/** Basis Theory's documented API host: an api_base_url naming it is no detour (provider-base-url.ts). */
export const BASIS_THEORY_OFFICIAL_HOST = /^api\.basistheory\.com$/;

export const basisTheoryFacts = vaultChecks({
  code: 'basis_theory',
  name: 'Basis Theory',
  vault: 'basis_theory',
  // A private application's key with the token:use permission (checked by the `test` call).
  key: { name: 'api_key', env: 'BASIS_THEORY_API_KEY' },
  officialHost: BASIS_THEORY_OFFICIAL_HOST,
  // Basis Theory's keys do not say their mode (a tenant is test or production), so only the
  // destinations are checked. Its expressions render inside JSON strings, and Checkout.com's card
  // source takes its expiry as integers (docs/decisions.md).
  cannotReach: {
    checkout: 'its expressions render the card\'s expiry as text, and Checkout.com takes it as numbers; forward to adyen',
  },
});
