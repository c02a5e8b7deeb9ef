// Acme Pay, a provider that exists only in tests: one folder like connectors/<code>/, added to the
// list by one line in a test's stack options (`providers: [...PROVIDERS, acmePayProvider]`). Its
// connector talks to the stand-in in ./stand-in.ts.
import type { ProviderDefinition } from '../../../services/payments/index.js';
import { ACME_PAY_OFFICIAL_HOST, createAcmePayConnector } from './connector.js';

// Acme Pay's keys say their mode, as Stripe's do: ak_test_… / ak_live_….
function keyMode(values: Record<string, string>, mode: string): [string, string] | undefined {
  const keyMode = /^ak_(test|live)_/.exec(values.api_key ?? '')?.[1];
  return keyMode === undefined || keyMode === mode
    ? undefined : ['api_key', `api_key is an Acme Pay ${keyMode} key but the account is ${mode}`];
}

export const acmePayProvider: ProviderDefinition = {
  code: 'acme_pay',
  name: 'Acme Pay',
  methods: ['card'],
  currencies: ['EUR', 'GBP'],
  countries: [],
  capabilities: { settlementSync: true, settlementReports: false, notifications: false, vaultForwarding: false },
  credentialFields: [
    { name: 'api_key', required: true, secret: true, env: 'ACME_PAY_API_KEY' },
    { name: 'api_base_url', required: false, secret: false },
  ],
  officialHost: ACME_PAY_OFFICIAL_HOST,
  modeMismatch: keyMode,
  // Acme Pay's card tokens: tok_….
  issuedToken: (token) => token.startsWith('tok_'),
  create: createAcmePayConnector,
};
