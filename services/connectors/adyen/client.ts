// One Adyen library client per account, API key and host: the official @adyen/api-library's
// Client and CheckoutAPI (request models, serialisation, endpoints, TEST/LIVE host rules), with the
// HTTP transport it lets an integration supply (Client's second argument, its ClientInterface).
// Ours sends with fetch, so each request stops when the connector call's AbortSignal aborts, and
// an account's api_base_url replaces Adyen's host (a sandbox or a local stand-in on plain http,
// which the library's own https-only transport cannot reach).
import type adyen from '@adyen/api-library';
import { ADYEN_OFFICIAL_HOST } from './facts.js';
import { lazyImport } from '../lazy-import.js';
import { providerFetch, type ProviderNetwork } from '../provider-fetch.js';
import type { CredentialSource } from '../types.js';

/** The library, imported on first use (lazy-import.ts). */
export const adyenSdk = lazyImport(() => import('@adyen/api-library').then((m) => m.default));
type Config = InstanceType<typeof adyen.Config>;
export type AdyenHttpError = InstanceType<typeof adyen.HttpClientException>;

/** An error the library raised for Adyen's answer; before the library is loaded none exists. */
export function isAdyenHttpError(err: unknown): err is AdyenHttpError {
  const sdk = adyenSdk.loaded();
  return sdk !== undefined && err instanceof sdk.HttpClientException;
}
type RequestOptions = { idempotencyKey?: string; signal?: AbortSignal | null; method?: string; params?: unknown };

/** Seconds-scale backstop; a connector call ends at the orchestrator's deadline (its signal) well before. */
const REQUEST_TIMEOUT_MS = 30_000;


/** No answer from Adyen: refused connection, reset, or our deadline. What Adyen did is unknown. */
export class AdyenConnectionError extends Error {
  override readonly name = 'AdyenConnectionError';
}

/**
 * The library's transport contract, with fetch. Errors are the library's HttpClientException
 * (statusCode, errorCode, apiError, responseHeaders) as its own transport raises them, so code
 * written for the library reads them alike.
 */
class FetchTransport {
  private readonly send: typeof fetch;

  /** `via`: a vault's forwarding fetch in place of ours, for a URL our rule allows (the request is built and read the same). */
  constructor(private readonly baseUrl: string | undefined, network: ProviderNetwork, via?: typeof fetch) {
    this.send = providerFetch(baseUrl, { ...network, officialHost: ADYEN_OFFICIAL_HOST }, via);
  }

  async request(endpoint: string, json: string | Buffer, config: Config, _keyRequired: boolean, options: RequestOptions = {}): Promise<string> {
    const url = new URL(endpoint);
    if (options.params) url.search = new URLSearchParams(options.params as Record<string, string>).toString();
    const target = this.baseUrl ? `${this.baseUrl.replace(/\/+$/, '')}${url.pathname}${url.search}` : url.toString();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-api-key': config.apiKey ?? '',
      'user-agent': `svc-payments-adyen-connector ${config.applicationName ?? ''}`.trim(),
    };
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    const timeout = AbortSignal.timeout(config.connectionTimeoutMillis ?? REQUEST_TIMEOUT_MS);
    let res: Response;
    let body: string;
    try {
      res = await this.send(target, {
        method: options.method ?? 'POST',
        headers,
        body: options.method === 'GET' ? undefined : json,
        signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
      });
      body = await res.text();
    } catch (err) {
      throw new AdyenConnectionError(`Adyen did not answer: ${(err as Error).message}`);
    }
    if (res.ok) return body;
    const responseHeaders = Object.fromEntries(res.headers.entries());
    let apiError: Record<string, unknown> | undefined;
    try {
      apiError = JSON.parse(body) as Record<string, unknown>;
    } catch {
      apiError = undefined;
    }
    const { HttpClientException } = await adyenSdk.load();
    throw new HttpClientException({
      message: `HTTP Exception: ${res.status}. ${String(apiError?.message ?? res.statusText)}`,
      statusCode: res.status,
      errorCode: typeof apiError?.errorCode === 'string' ? apiError.errorCode : undefined,
      responseHeaders,
      responseBody: body,
      apiError,
    });
  }
}

export interface AdyenAccount {
  checkout: InstanceType<typeof adyen.CheckoutAPI>;
  /** The Disputes API (ca-test / ca-live.adyen.com), on the same client and transport. */
  disputes: InstanceType<typeof adyen.DisputesAPI>['DisputesApi'];
  merchantAccount: string;
  hmacKey: string | undefined;
  mode: 'test' | 'live';
}

export interface AdyenClients {
  /**
   * undefined when the account has no stored API key or merchant account (or, live, no live URL
   * prefix). With `via` (a vault's forwarding fetch) the client sends through it: made per call, not cached.
   */
  forAccount(accountId: string, via?: typeof fetch): Promise<AdyenAccount | undefined>;
}

/**
 * test mode is Adyen's TEST environment (checkout-test.adyen.com); live is LIVE, whose host the
 * library builds from the account's live URL prefix ({prefix}-checkout-live.adyenpayments.com).
 * Clients are cached by account id, key, prefix and base URL: a rotated key gets a new client.
 */
export function createAdyenClients(
  credentials: CredentialSource, network: ProviderNetwork,
): AdyenClients {
  type Apis = Pick<AdyenAccount, 'checkout' | 'disputes'>;
  const cache = new Map<string, Apis>();
  return {
    async forAccount(accountId, via) {
      const creds = await credentials.get(accountId);
      const v = creds?.values;
      if (!creds || !v?.api_key || !v.merchant_account) return undefined;
      const live = creds.mode === 'live';
      // Adyen's live endpoints are per company ({prefix}-checkout-live…): without the prefix there is no host.
      if (live && !v.live_url_prefix && !v.api_base_url) return undefined;
      const { Client, CheckoutAPI, DisputesAPI, EnvironmentEnum } = await adyenSdk.load();
      const make = (transport: FetchTransport): Apis => {
        const client = new Client({
          apiKey: v.api_key,
          environment: live ? EnvironmentEnum.LIVE : EnvironmentEnum.TEST,
          // The library requires a prefix for LIVE; with a stand-in's base URL the host is replaced anyway.
          ...(live && { liveEndpointUrlPrefix: v.live_url_prefix ?? (v.api_base_url ? 'standin' : undefined) }),
          connectionTimeoutMillis: REQUEST_TIMEOUT_MS,
        }, transport);
        return { checkout: new CheckoutAPI(client), disputes: new DisputesAPI(client).DisputesApi };
      };
      const account = (apis: Apis): AdyenAccount => ({
        ...apis, merchantAccount: v.merchant_account, hmacKey: v.hmac_key, mode: creds.mode,
      });
      if (via) return account(make(new FetchTransport(v.api_base_url, network, via)));
      const cacheKey = [accountId, v.api_key, creds.mode, v.live_url_prefix ?? '', v.api_base_url ?? ''].join('\u0000');
      let apis = cache.get(cacheKey);
      if (!apis) {
        for (const k of cache.keys()) if (k.startsWith(`${accountId}\u0000`)) cache.delete(k);
        apis = make(new FetchTransport(v.api_base_url, network));
        cache.set(cacheKey, apis);
      }
      return account(apis);
    },
  };
}
