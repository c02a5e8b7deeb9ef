// One @paypal/paypal-server-sdk client per account, client id, secret, environment and base URL.
// The SDK knows only PayPal's two hosts (its Environment: Production, Sandbox) and sends with
// axios. Its axios is given the fetch adapter with a fetch of ours (the SDK's
// unstable_httpClientOptions reach axios as they are): that fetch moves PayPal's host to the
// account's api_base_url, when it names one, and sends through the account's provider fetch, so
// the one address policy (provider-fetch.ts) holds for PayPal as for every provider. Each call is
// bounded by the orchestrator's deadline through the SDK's own abortSignal.
import type { Client, OrdersController, PaymentsController } from '@paypal/paypal-server-sdk';
import { PAYPAL_OFFICIAL_HOST } from './facts.js';
import { lazyImport } from '../lazy-import.js';
import { providerFetch, type ProviderNetwork } from '../provider-fetch.js';
import type { CredentialSource } from '../types.js';

/** Seconds-scale backstop; a connector call ends at the orchestrator's deadline (its signal) well before. */
const REQUEST_TIMEOUT_MS = 30_000;


const SDK_HOSTS = { live: 'https://api-m.paypal.com', sandbox: 'https://api-m.sandbox.paypal.com' } as const;

/** The SDK and its axios, imported on first use (lazy-import.ts). */
export const paypalSdk = lazyImport(() => import('@paypal/paypal-server-sdk'));

export type PayPalEnvironment = keyof typeof SDK_HOSTS;

/** The account's PayPal environment: as its credential says, else the one of its mode. */
export function environmentOf(values: Record<string, string>, mode: string): PayPalEnvironment {
  if (values.environment === 'live' || values.environment === 'sandbox') return values.environment;
  return mode === 'live' ? 'live' : 'sandbox';
}

/**
 * The fetch the SDK's axios sends with: the request as axios built it (a Request), its URL moved
 * from PayPal's host to `apiBaseUrl`, through `send` (the account's provider fetch), with the
 * call's signal (the deadline, the SDK's time-out) as axios composed it.
 */
export function rebasedFetch(sdkHost: string, apiBaseUrl: string | undefined, send: typeof fetch): typeof fetch {
  const base = apiBaseUrl?.replace(/\/+$/, '');
  return async (input, init) => {
    const req = input instanceof Request ? input : new Request(input, init);
    const url = base && req.url.startsWith(sdkHost) ? `${base}${req.url.slice(sdkHost.length)}` : req.url;
    // As bytes: a multipart body (dispute evidence documents) is not text.
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.from(await req.arrayBuffer());
    return send(url, { method: req.method, headers: Object.fromEntries(req.headers), body, signal: req.signal });
  };
}

export interface PayPalAccount {
  orders: OrdersController;
  payments: PaymentsController;
  client: Client;
  webhookId: string | undefined;
  mode: 'test' | 'live';
}

export interface PayPalClients {
  /** undefined when the account has no stored client id and secret. */
  forAccount(accountId: string): Promise<PayPalAccount | undefined>;
}

/** Clients are cached by account and everything they were made from, so rotated credentials get a new one. */
export function createPayPalClients(credentials: CredentialSource, network: ProviderNetwork): PayPalClients {
  const cache = new Map<string, PayPalAccount>();
  return {
    async forAccount(accountId) {
      const creds = await credentials.get(accountId);
      const v = creds?.values;
      if (!creds || !v?.client_id || !v.client_secret) return undefined;
      const env = environmentOf(v, creds.mode);
      const cacheKey = [accountId, v.client_id, v.client_secret, env, v.api_base_url ?? '', v.webhook_id ?? ''].join('\u0000');
      const cached = cache.get(cacheKey);
      if (cached) return cached;
      for (const k of cache.keys()) if (k.startsWith(`${accountId}\u0000`)) cache.delete(k);
      const { Client: Sdk, Environment, OrdersController: Orders, PaymentsController: Payments } = await paypalSdk.load();
      const send = providerFetch(v.api_base_url, { ...network, officialHost: PAYPAL_OFFICIAL_HOST });
      const client = new Sdk({
        environment: env === 'live' ? Environment.Production : Environment.Sandbox,
        timeout: REQUEST_TIMEOUT_MS,
        clientCredentialsAuthCredentials: { oAuthClientId: v.client_id, oAuthClientSecret: v.client_secret },
        // No retries of its own: a repeat is the orchestrator's, under the same PayPal-Request-Id.
        httpClientOptions: { timeout: REQUEST_TIMEOUT_MS, retryConfig: { maxNumberOfRetries: 0 } },
        unstable_httpClientOptions: { adapter: 'fetch', env: { fetch: rebasedFetch(SDK_HOSTS[env], v.api_base_url, send) } },
      });
      const account: PayPalAccount = {
        client, orders: new Orders(client), payments: new Payments(client), webhookId: v.webhook_id, mode: creds.mode,
      };
      cache.set(cacheKey, account);
      return account;
    },
  };
}
