// One Stripe SDK client per account and secret key, pointed at Stripe's API or at the account's
// api_base_url (a sandbox or a local stand-in), whose HTTP requests stop when the calling
// connector request's AbortSignal aborts and go through the fetch its base URL allows (provider-fetch.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import type Stripe from 'stripe';
import { STRIPE_OFFICIAL_HOST } from './facts.js';
import { providerFetch, type ProviderNetwork } from '../provider-fetch.js';
import { lazyImport } from '../lazy-import.js';
import type { CredentialSource } from '../types.js';

/** The SDK, imported on first use (lazy-import.ts). */
export const stripeSdk = lazyImport(() => import('stripe').then((m) => m.default));

/** Seconds-scale backstop; a connector call ends at the orchestrator's deadline (its signal) well before. */
const REQUEST_TIMEOUT_MS = 30_000;


/**
 * The signal of the connector request on whose behalf the SDK is fetching. The SDK takes no
 * AbortSignal per request, and clients are shared between requests, so the fetch it makes reads
 * the signal from the async context the connector call runs in.
 */
const callSignal = new AsyncLocalStorage<AbortSignal>();

/** Runs `call` so that the SDK's HTTP requests made by it are aborted with `signal`. */
export function withSignal<T>(signal: AbortSignal, call: () => Promise<T>): Promise<T> {
  return callSignal.run(signal, call);
}

const abortable = (send: typeof fetch): typeof fetch => (input, init) => {
  const signal = callSignal.getStore();
  if (!signal) return send(input, init);
  // Aborting with an AbortError makes the SDK report a StripeConnectionError (its time-out).
  const combined = init?.signal ? AbortSignal.any([init.signal, signal]) : signal;
  return send(input, { ...init, signal: combined });
};

/** SDK options for an api_base_url such as http://127.0.0.1:4010: host, port and protocol. */
export function hostOptions(apiBaseUrl: string | undefined): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> {
  if (!apiBaseUrl) return {};
  const url = new URL(apiBaseUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port || (protocol === 'http' ? 80 : 443), protocol };
}

export interface StripeAccount {
  client: Stripe;
  mode: 'test' | 'live';
}

export interface StripeClients {
  /** undefined when the account has no stored secret key. */
  forAccount(accountId: string): Promise<StripeAccount | undefined>;
}

/**
 * Clients are cached by account id, secret key and base URL, so a rotated key (or a moved
 * sandbox) gets a new client on the next call while the old one is simply dropped.
 *
 * maxNetworkRetries is 0: the orchestrator's deadline covers one call, and the retry of a lost
 * answer is the status query, which sends the same request again with the same Idempotency-Key
 * (Stripe's documented safe retry). The SDK still retries a connection closed before any answer
 * once, with the same key, which Stripe answers from its idempotency store.
 */
export function createStripeClients(
  credentials: CredentialSource, network: ProviderNetwork,
): StripeClients {
  const cache = new Map<string, Stripe>();
  return {
    async forAccount(accountId) {
      const creds = await credentials.get(accountId);
      const key = creds?.values.secret_key;
      if (!creds || !key) return undefined;
      const base = creds.values.api_base_url;
      const cacheKey = `${accountId}\u0000${key}\u0000${base ?? ''}`;
      let client = cache.get(cacheKey);
      if (!client) {
        for (const k of cache.keys()) if (k.startsWith(`${accountId}\u0000`)) cache.delete(k);
        const Sdk = await stripeSdk.load();
        client = new Sdk(key, {
          ...hostOptions(base),
          httpClient: Sdk.createFetchHttpClient(abortable(providerFetch(base, { ...network, officialHost: STRIPE_OFFICIAL_HOST }))),
          maxNetworkRetries: 0,
          timeout: REQUEST_TIMEOUT_MS,
          telemetry: false,
          appInfo: { name: 'svc-payments-stripe-connector' },
        });
        cache.set(cacheKey, client);
      }
      return { client, mode: creds.mode };
    },
  };
}
