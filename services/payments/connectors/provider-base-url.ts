// Who vouches for a provider account's api_base_url. Requests there carry the account's API key,
// so a merchant-chosen base URL passes the platform's address policy (shared/net) at live grade
// in both modes (test keys are free to get): https, a public host, checked again on every
// connection; an origin the operator lists in PROVIDER_BASE_URL_ALLOWLIST is taken as written.
import { endpointUrlProblem, listedOrigin, type UrlPolicy } from '../../platform/net/index.js';

/** official: the provider's own host; operator: listed by the deployment; merchant: neither. */
export type BaseUrlTrust = 'official' | 'operator' | 'merchant';

export const PROVIDER_URL_POLICY: UrlPolicy = {
  allowLoopbackInTest: false, liveGradeAlways: true, subject: 'provider requests',
};

/** `official`: the provider's documented API hosts (its definition's officialHost), a fact of each provider. */
export function baseUrlTrust(official: RegExp | undefined, apiBaseUrl: string | undefined, allowlist: readonly string[]): BaseUrlTrust {
  if (apiBaseUrl === undefined) return 'official';
  if (listedOrigin(apiBaseUrl, allowlist)) return 'operator';
  try {
    const url = new URL(apiBaseUrl);
    if (url.protocol === 'https:' && url.port === '' && !url.username && !url.password && official?.test(url.hostname)) return 'official';
  } catch {
    return 'merchant';
  }
  return 'merchant';
}

/** Why an api_base_url may not be stored or called, or undefined when it may. */
export function baseUrlProblem(apiBaseUrl: string, allowlist: readonly string[]): string | undefined {
  if (listedOrigin(apiBaseUrl, allowlist)) return undefined;
  const problem = endpointUrlProblem(apiBaseUrl, 'live', PROVIDER_URL_POLICY);
  return problem && `api_base_url is refused: ${problem}; a deployment may vouch for other origins (PROVIDER_BASE_URL_ALLOWLIST)`;
}
