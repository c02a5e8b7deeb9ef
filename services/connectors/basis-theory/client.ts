// One Basis Theory client per vault connection: the official SDK (@basis-theory/node-sdk) for its
// API calls, and the plain fetch of the account's base URL for the ephemeral proxy, which the SDK
// does not offer (its `proxies` resource manages pre-configured proxies only). Both go through the
// fetch the account's api_base_url allows (provider-fetch.ts), so a merchant-chosen host is guarded.
import type { BasisTheoryClient } from '@basis-theory/node-sdk';
import { BASIS_THEORY_OFFICIAL_HOST } from './facts.js';
import { lazyImport } from '../lazy-import.js';
import { providerFetch, type ProviderNetwork } from '../provider-fetch.js';
import type { CredentialSource } from '../types.js';

export const BASIS_THEORY_API = 'https://api.basistheory.com';

/** The SDK, imported on first use (lazy-import.ts). */
export const basisTheorySdk = lazyImport(() => import('@basis-theory/node-sdk'));

/** Seconds-scale backstop; a forwarded attempt ends at the orchestrator's deadline (its signal) first. */
const REQUEST_TIMEOUT_S = 30;

export interface BasisTheoryAccount {
  client: BasisTheoryClient;
  apiKey: string;
  baseUrl: string;
  send: typeof fetch;
}

type SdkFetcher = NonNullable<BasisTheoryClient.Options['fetcher']>;
type SdkArgs = Parameters<SdkFetcher>[0];

async function headerValues(headers: SdkArgs['headers']): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const v = typeof value === 'function' ? await (value as (ctx: object) => unknown)({}) : value;
    if (typeof v === 'string') out[name] = v;
  }
  return out;
}

/**
 * The SDK's transport over our fetch: JSON in, JSON out, the shapes of the SDK's own fetcher
 * (core/fetcher/Fetcher.d.ts). No retries: a failed `test` call is simply reported.
 */
function sdkFetcher(send: typeof fetch): SdkFetcher {
  return (async (args: SdkArgs) => {
    const url = new URL(args.url);
    for (const [k, v] of Object.entries(args.queryParameters ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers = await headerValues(args.headers);
    if (args.body !== undefined) headers['Content-Type'] = args.contentType ?? 'application/json';
    let res: Response;
    try {
      res = await send(url, {
        method: args.method, headers, body: args.body === undefined ? undefined : JSON.stringify(args.body),
        signal: args.abortSignal ?? AbortSignal.timeout(args.timeoutMs ?? REQUEST_TIMEOUT_S * 1000),
      });
    } catch (err) {
      return { ok: false, error: { reason: 'unknown', errorMessage: (err as Error).message }, rawResponse: raw(undefined, url) };
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      return { ok: false, error: { reason: 'non-json', statusCode: res.status, rawBody: text }, rawResponse: raw(res, url) };
    }
    if (res.ok) return { ok: true, body, headers: Object.fromEntries(res.headers), rawResponse: raw(res, url) };
    return { ok: false, error: { reason: 'status-code', statusCode: res.status, body }, rawResponse: raw(res, url) };
  }) as SdkFetcher;
}

function raw(res: Response | undefined, url: URL) {
  return {
    headers: res?.headers ?? new Headers(), redirected: false, status: res?.status ?? 0,
    statusText: res?.statusText ?? '', type: 'basic' as const, url: url.toString(),
  };
}

export interface BasisTheoryClients {
  /** undefined when the connection has no stored api_key. */
  forAccount(accountId: string): Promise<BasisTheoryAccount | undefined>;
}

export function createBasisTheoryClients(credentials: CredentialSource, network: ProviderNetwork): BasisTheoryClients {
  return {
    async forAccount(accountId) {
      const creds = await credentials.get(accountId);
      const apiKey = creds?.values.api_key;
      if (!creds || !apiKey) return undefined;
      const base = creds.values.api_base_url;
      const send = providerFetch(base, { ...network, officialHost: BASIS_THEORY_OFFICIAL_HOST });
      const baseUrl = (base ?? BASIS_THEORY_API).replace(/\/+$/, '');
      // Cheap to make (no connection pool of its own: it sends through `send`), so one per call.
      const { BasisTheoryClient: Sdk } = await basisTheorySdk.load();
      const client = new Sdk({
        apiKey, baseUrl, fetcher: sdkFetcher(send), maxRetries: 0, timeoutInSeconds: REQUEST_TIMEOUT_S,
      });
      return { client, apiKey, baseUrl, send };
    },
  };
}
