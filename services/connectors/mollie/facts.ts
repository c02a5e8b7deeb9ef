// Mollie (its Payments API: European local methods, bank redirects and SEPA bank transfer), its facts
// and checks: plain code, no SDK (index.ts adds the connector loader).
import type { ProviderChecks } from '../provider-definition.js';

/** Mollie's documented API host: an api_base_url naming it is no detour. */
export const MOLLIE_OFFICIAL_HOST = /^api\.mollie\.com$/;

// Mollie's API keys say their mode: test_… and live_… (30 characters after the prefix).
function mollieKeyMode(values: Record<string, string>, mode: string): [string, string] | undefined {
  const keyMode = /^(test|live)_/.exec(values.api_key ?? '')?.[1];
  if (keyMode === undefined) return ['api_key', 'api_key is not a Mollie API key (test_… or live_…)'];
  if (keyMode === mode) return undefined;
  return ['api_key', `api_key is a Mollie ${keyMode} key but the account is ${mode}; use a ${mode} key`];
}

/** Mollie's webhookUrl must be a public address Mollie can reach: the deployment's own (PUBLIC_BASE_URL). */
function webhookBaseProblem(values: Record<string, string>): [string, string] | undefined {
  const base = values.webhook_base_url;
  if (base === undefined) return undefined;
  try {
    const url = new URL(base);
    if ((url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password && !url.search && !url.hash) return undefined;
  } catch {
    // Not a URL: refused below.
  }
  return ['webhook_base_url', 'webhook_base_url must be this deployment\'s public base URL (https://…, no credentials, query or fragment)'];
}

export const mollieFacts: ProviderChecks = {
  code: 'mollie',
  name: 'Mollie',
  methods: ['local', 'open_banking', 'bank_transfer'],
  // Mollie's settlement currencies for these methods; iDEAL, Bancontact and SEPA bank transfer take EUR only.
  currencies: ['EUR', 'CHF', 'DKK', 'GBP', 'NOK', 'PLN', 'SEK', 'CZK', 'HUF', 'RON'],
  // The European Economic Area, Switzerland and the United Kingdom: where Mollie onboards merchants.
  countries: [
    'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IS', 'IE', 'IT', 'LV', 'LI', 'LT',
    'LU', 'MT', 'NL', 'NO', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE', 'CH', 'GB',
  ],
  capabilities: {
    settlementSync: true,
    settlementReports: false,
    notifications: true,
    vaultForwarding: false,
  },
  credentialFields: [
    { name: 'api_key', required: true, secret: true, env: 'MOLLIE_API_KEY' },
    // Mollie posts to the webhookUrl each payment names: <webhook_base_url>/providers/mollie/webhooks/<account id>.
    { name: 'webhook_base_url', required: true, secret: false },
    { name: 'api_base_url', required: false, secret: false },
  ],
  officialHost: MOLLIE_OFFICIAL_HOST,
  modeMismatch: (values, mode) => mollieKeyMode(values, mode) ?? webhookBaseProblem(values),
};
