// Who vouches for a provider account's api_base_url, and for each URL a provider SDK actually
// requests. Requests carry the account's API key, so a merchant-chosen base URL passes the
// platform's address policy (shared/net) at live grade in both modes (test keys are free to get):
// https, a public host, checked again on every connection; an origin the operator lists in
// PROVIDER_BASE_URL_ALLOWLIST is taken as written.
import { endpointUrlProblem, listedOrigin, type UrlPolicy } from '../platform/net/index.js';

/** official: the provider's own host; operator: listed by the deployment; merchant: neither. */
export type BaseUrlTrust = 'official' | 'operator' | 'merchant';

export const PROVIDER_URL_POLICY: UrlPolicy = {
  allowLoopbackInTest: false, liveGradeAlways: true, subject: 'provider requests',
};

/** `official`: the provider's documented API hosts (its definition's officialHost), a fact of each provider. */
export function baseUrlTrust(official: RegExp | undefined, apiBaseUrl: string | undefined, allowlist: readonly string[]): BaseUrlTrust {
  if (apiBaseUrl === undefined) return 'official';
  if (listedOrigin(apiBaseUrl, allowlist)) return 'operator';
  return URL.canParse(apiBaseUrl) && isOfficial(official, new URL(apiBaseUrl)) ? 'official' : 'merchant';
}

/** Why an api_base_url may not be stored or called, or undefined when it may. */
export function baseUrlProblem(apiBaseUrl: string, allowlist: readonly string[]): string | undefined {
  if (listedOrigin(apiBaseUrl, allowlist)) return undefined;
  const problem = endpointUrlProblem(apiBaseUrl, 'live', PROVIDER_URL_POLICY);
  return problem && `api_base_url is refused: ${problem}; a deployment may vouch for other origins (PROVIDER_BASE_URL_ALLOWLIST)`;
}

/** An official host as the provider documents it: https on its default port, no user-info. */
function isOfficial(official: RegExp | undefined, url: URL): boolean {
  return url.protocol === 'https:' && url.port === '' && !url.username && !url.password && official?.test(url.hostname) === true;
}

/** How a request may go out (who vouches for its host), or why it may not go out at all. */
export type RequestVerdict = { trust: BaseUrlTrust } | { problem: string };

/**
 * The rule for every URL a provider SDK requests, whatever its credentials made of it (a host built
 * from a live URL prefix or a subdomain, a rebased path): it must be at the account's api_base_url
 * (itself allowed) or, without one, at one of the provider's own hosts; and unless its origin is
 * operator-listed it must pass the address policy (https, no user-info, a public host).
 */
export function requestVerdict(
  requested: string, apiBaseUrl: string | undefined, official: RegExp | undefined, allowlist: readonly string[],
): RequestVerdict {
  if (!URL.canParse(requested)) return { problem: 'the requested URL is not a valid absolute URL' };
  const url = new URL(requested);
  if (apiBaseUrl !== undefined) {
    // Stored before the policy, or the allow-list shrank since: checked on every request.
    const problem = baseUrlProblem(apiBaseUrl, allowlist);
    if (problem !== undefined) return { problem };
    if (new URL(apiBaseUrl).origin !== url.origin || url.username || url.password) {
      return { problem: `${url.host} is not the account's api_base_url` };
    }
  } else if (!isOfficial(official, url)) {
    return { problem: `${url.host} is not one of the provider's own API hosts` };
  }
  if (listedOrigin(requested, allowlist)) return { trust: 'operator' };
  const problem = endpointUrlProblem(`${url.protocol}//${url.host}/`, 'live', PROVIDER_URL_POLICY);
  if (problem !== undefined) return { problem: `the request is refused: ${problem}` };
  return { trust: isOfficial(official, url) ? 'official' : 'merchant' };
}
