// One @mollie/api-client per account, key and base URL, pointed at Mollie's API or at the account's
// api_base_url (a local stand-in). Every SDK request goes through the account's provider fetch
// (provider-fetch.ts) by way of the adapter in sdk-transport.ts, which says why it is needed.
import type { MollieClient } from '@mollie/api-client';
import { MOLLIE_OFFICIAL_HOST } from './facts.js';
import { sendingThrough, verifiedSdk } from './sdk-transport.js';
import { providerFetch, type ProviderNetwork } from '../provider-fetch.js';
import type { CredentialSource } from '../types.js';

/** Mollie's API version path, which the SDK's apiEndpoint includes. */
const API_PATH = '/v2/';

export interface MollieAccount {
  /** Runs SDK calls through the account's provider fetch, ended when `signal` aborts. */
  call<T>(signal: AbortSignal, run: (client: MollieClient) => Promise<T>): Promise<T>;
  /** Where Mollie posts this account's payment updates (webhookUrl). */
  webhookUrl: string | undefined;
  mode: 'test' | 'live';
}

export interface MollieClients {
  /** undefined when the account has no stored API key, or one the SDK refuses. */
  forAccount(accountId: string): Promise<MollieAccount | undefined>;
}

/** The SDK's apiEndpoint for an account: its api_base_url's root plus /v2/, else Mollie's own. */
export function apiEndpointOf(values: Record<string, string>): string | undefined {
  return values.api_base_url ? `${values.api_base_url.replace(/\/+$/, '')}${API_PATH}` : undefined;
}

/** This account's notification route at the deployment's public base URL. */
export function webhookUrlOf(values: Record<string, string>, accountId: string): string | undefined {
  const base = values.webhook_base_url?.replace(/\/+$/, '');
  return base ? `${base}/providers/mollie/webhooks/${encodeURIComponent(accountId)}` : undefined;
}

/** Clients are cached by account id, key and base URL, so a rotated key gets a new client. */
export function createMollieClients(credentials: CredentialSource, network: ProviderNetwork): MollieClients {
  const cache = new Map<string, MollieClient>();
  return {
    async forAccount(accountId) {
      const creds = await credentials.get(accountId);
      const v = creds?.values;
      if (!creds || !v?.api_key) return undefined;
      const cacheKey = [accountId, v.api_key, v.api_base_url ?? ''].join('\u0000');
      let client = cache.get(cacheKey);
      if (!client) {
        for (const k of cache.keys()) if (k.startsWith(`${accountId}\u0000`)) cache.delete(k);
        const apiEndpoint = apiEndpointOf(v);
        const sdkNow = await verifiedSdk();
        try {
          client = sdkNow.createMollieClient({ apiKey: v.api_key, ...(apiEndpoint && { apiEndpoint }) });
        } catch {
          // The SDK refuses a malformed key (its TypeError): the account cannot be reached.
          return undefined;
        }
        cache.set(cacheKey, client);
      }
      const send = providerFetch(v.api_base_url, { ...network, officialHost: MOLLIE_OFFICIAL_HOST });
      const bound = client;
      return {
        call: (signal, run) => sendingThrough(send, signal, () => run(bound)),
        webhookUrl: webhookUrlOf(v, accountId),
        mode: creds.mode,
      };
    },
  };
}
