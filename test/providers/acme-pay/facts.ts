// Acme Pay's facts and checks: plain code, as a shipped provider's facts.ts.
import type { ProviderChecks } from '../../../services/connectors/provider-definition.js';

export const ACME_PAY_OFFICIAL_HOST = /^api\.acme-pay\.example$/;

// Acme Pay's keys say their mode, as Stripe's do: ak_test_… / ak_live_….
function keyMode(values: Record<string, string>, mode: string): [string, string] | undefined {
  const keyMode = /^ak_(test|live)_/.exec(values.api_key ?? '')?.[1];
  return keyMode === undefined || keyMode === mode
    ? undefined : ['api_key', `api_key is an Acme Pay ${keyMode} key but the account is ${mode}`];
}

export const acmePayFacts: ProviderChecks = {
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
};
