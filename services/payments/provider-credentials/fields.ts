import { invalidField } from '../../shared/index.js';
import { baseUrlProblem } from '../connectors/provider-base-url.js';

// The credential fields each licensed provider's connector reads (connectors/types.ts,
// AccountCredentials), as its API reference names them. A connect is checked against this table
// before anything is stored, so an account never exists with credentials its connector cannot use.

interface ProviderFields {
  required: string[];
  optional: string[];
  /** A field's value is wrong for the account's mode (a test key on a live account); the message says why. */
  modeMismatch?(values: Record<string, string>, mode: string): [string, string] | undefined;
}

// Stripe's secret and restricted keys say their mode: sk_test_… / sk_live_…, rk_test_… / rk_live_….
function stripeKeyMode(values: Record<string, string>, mode: string): [string, string] | undefined {
  const keyMode = /^[sr]k_(test|live)_/.exec(values.secret_key ?? '')?.[1];
  if (keyMode === undefined || keyMode === mode) return undefined;
  return ['secret_key', `secret_key is a Stripe ${keyMode} key but the account is ${mode}; use a ${mode} key`];
}

// Adyen's live Checkout host is per merchant ({prefix}-checkout-live.adyenpayments.com): without the
// prefix a live account has no host to call, unless it is pointed elsewhere with api_base_url.
function adyenLiveHost(values: Record<string, string>, mode: string): [string, string] | undefined {
  if (mode !== 'live' || values.live_url_prefix !== undefined || values.api_base_url !== undefined) return undefined;
  return ['live_url_prefix', 'a live Adyen account needs live_url_prefix (Customer Area > Developers > API URLs)'];
}

export const CREDENTIAL_FIELDS: Record<string, ProviderFields> = {
  stripe: { required: ['secret_key', 'webhook_secret'], optional: ['api_base_url'], modeMismatch: stripeKeyMode },
  adyen: {
    required: ['api_key', 'merchant_account', 'hmac_key'],
    // Basic auth is what Adyen's notification settings may add on top of the HMAC signature.
    optional: ['live_url_prefix', 'api_base_url', 'basic_auth_user', 'basic_auth_password'],
    modeMismatch: adyenLiveHost,
  },
};

const MAX_VALUE = 4096;

/**
 * The values to store, trimmed and empty ones dropped; a 422 naming every missing field at once,
 * or the first unknown or malformed one. Values are never quoted in a message. An api_base_url
 * passes the provider address policy (provider-base-url.ts) unless its origin is in `allowlist`.
 */
export function checkedValues(
  providerCode: string, mode: string, raw: Record<string, string>, allowlist: readonly string[],
): Record<string, string> {
  const spec = CREDENTIAL_FIELDS[providerCode];
  if (!spec) {
    throw invalidField('provider', `Unknown provider "${providerCode}"; the providers that can be connected are ` +
      Object.keys(CREDENTIAL_FIELDS).sort().join(', '));
  }
  const values = Object.fromEntries(
    Object.entries(raw).map(([k, v]) => [k, v.trim()] as const).filter(([, v]) => v !== ''),
  );
  const missing = spec.required.filter((f) => values[f] === undefined);
  if (missing.length > 0) {
    throw invalidField(missing[0], `${providerCode} needs ${missing.join(', ')}: ${missing.length === 1 ? 'it is' : 'they are'} missing`);
  }
  const known = [...spec.required, ...spec.optional];
  const unknown = Object.keys(values).find((k) => !known.includes(k));
  if (unknown !== undefined) {
    throw invalidField(unknown, `${providerCode} takes ${known.join(', ')}; "${unknown}" is not one of them`);
  }
  const tooLong = Object.keys(values).find((k) => values[k].length > MAX_VALUE);
  if (tooLong !== undefined) throw invalidField(tooLong, `${tooLong} must be at most ${MAX_VALUE} characters`);
  const urlProblem = values.api_base_url === undefined ? undefined : baseUrlProblem(values.api_base_url, allowlist);
  if (urlProblem !== undefined) throw invalidField('api_base_url', urlProblem);
  const mismatch = spec.modeMismatch?.(values, mode);
  if (mismatch) throw invalidField(mismatch[0], mismatch[1]);
  return values;
}
