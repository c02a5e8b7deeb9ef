// Basis Theory as a vault connection (issue 25), built like the Stripe vault: connected like a
// provider account (per mode, its private API key sealed, a `test` call), with the providers it
// may forward a token's card to (`destinations`) and the account's fee per forwarded attempt. It
// takes no payment itself, so routing never plans its accounts (docs/connectors.md, "Vault
// connections"); destinations send a forwarded attempt through its forwarder (proxy.ts).
import type { ProviderDefinition } from '../provider-definition.js';
import { destinationsProblem } from '../vault-forwarding.js';
import { BASIS_THEORY_OFFICIAL_HOST } from './client.js';
import { createBasisTheoryConnector } from './connector.js';
import { createBasisTheoryForwarder } from './proxy.js';

/**
 * Destinations whose forwarded request Basis Theory's expressions cannot fill: they render inside
 * JSON strings, and Checkout.com's card source takes its expiry as integers (docs/decisions.md).
 */
const CANNOT_REACH: Record<string, string> = {
  checkout: 'its expressions render the card\'s expiry as text, and Checkout.com takes it as numbers; forward to adyen',
};

export const basisTheoryProvider: ProviderDefinition = {
  code: 'basis_theory',
  name: 'Basis Theory',
  // None: a vault connection is never a route of its own.
  methods: [],
  currencies: [],
  countries: [],
  capabilities: {
    settlementSync: false,
    settlementReports: false,
    notifications: false,
    vaultForwarding: false,
    vault: 'basis_theory',
  },
  credentialFields: [
    // A private application's key with the token:use permission (checked by the `test` call).
    { name: 'api_key', required: true, secret: true, env: 'BASIS_THEORY_API_KEY' },
    // The provider codes the vault may forward to, comma-separated (e.g. "adyen").
    { name: 'destinations', required: true, secret: false },
    { name: 'api_base_url', required: false, secret: false },
  ],
  officialHost: BASIS_THEORY_OFFICIAL_HOST,
  // Basis Theory's keys do not say their mode (a tenant is test or production), so only the list is checked.
  modeMismatch: (values) => destinationsProblem(values, CANNOT_REACH),
  create: createBasisTheoryConnector,
  forwarder: createBasisTheoryForwarder,
};
