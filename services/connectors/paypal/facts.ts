// PayPal (Orders v2: wallet payments by the customer's approval on PayPal's page), its facts and
// checks: plain code, no SDK (index.ts adds the connector loader).
import type { ProviderChecks } from '../provider-definition.js';

/** The currencies PayPal's REST APIs accept for payments. */
export const PAYPAL_CURRENCIES = [
  'AUD', 'BRL', 'CAD', 'CNY', 'CZK', 'DKK', 'EUR', 'HKD', 'HUF', 'ILS', 'JPY', 'MYR', 'MXN', 'TWD', 'NZD', 'NOK',
  'PHP', 'PLN', 'GBP', 'SGD', 'SEK', 'CHF', 'THB', 'USD',
] as const;

/** PayPal's documented REST hosts, live and sandbox: an api_base_url naming one is no detour. */
export const PAYPAL_OFFICIAL_HOST = /^api(-m)?\.(sandbox\.)?paypal\.com$/;

/**
 * PayPal's credentials do not say their environment (sandbox and live client ids look alike): the
 * `environment` field does, and must agree with the account's mode, so a sandbox app never takes a
 * live payment. Left out, it follows the mode.
 */
function paypalEnvironmentMismatch(values: Record<string, string>, mode: string): [string, string] | undefined {
  const env = values.environment;
  if (env === undefined || env === '') return undefined;
  if (env !== 'sandbox' && env !== 'live') return ['environment', 'environment must be sandbox or live'];
  const wanted = mode === 'live' ? 'live' : 'sandbox';
  if (env === wanted) return undefined;
  return ['environment', `environment is ${env} but the account is ${mode}; use the PayPal app of the ${wanted} environment`];
}

export const paypalFacts: ProviderChecks = {
  code: 'paypal',
  name: 'PayPal',
  methods: ['wallet'],
  currencies: [...PAYPAL_CURRENCIES],
  countries: [],
  capabilities: {
    // PayPal's settlement reports (SFTP) and payouts exist but are not built here (README.md).
    settlementSync: false,
    settlementReports: false,
    notifications: true,
    vaultForwarding: false,
  },
  credentialFields: [
    { name: 'client_id', required: true, secret: false },
    { name: 'client_secret', required: true, secret: true, env: 'PAYPAL_CLIENT_SECRET' },
    // The id of the webhook registered for this service's notification URL (Developer Dashboard > Apps > Webhooks).
    { name: 'webhook_id', required: true, secret: false },
    { name: 'environment', required: false, secret: false },
    { name: 'api_base_url', required: false, secret: false },
  ],
  officialHost: PAYPAL_OFFICIAL_HOST,
  modeMismatch: paypalEnvironmentMismatch,
};
