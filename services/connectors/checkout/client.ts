// One checkout-sdk-node client per account, secret key and host, pointed at Checkout.com's API (its
// merchant-specific subdomain when the account names one) or at the account's api_base_url (a
// sandbox or a local stand-in). The SDK sends with the global fetch and takes neither a fetch nor a
// cancellation of its own, so each SDK call runs in an async context (withCall) whose fetch is the
// one the account's base URL allows (provider-fetch.ts) and whose requests stop with the call's signal.
import { AsyncLocalStorage } from 'node:async_hooks';
import type Checkout from 'checkout-sdk-node';
import { CHECKOUT_OFFICIAL_HOST } from './facts.js';
import { lazyImport } from '../lazy-import.js';
import { providerFetch, type ProviderNetwork } from '../provider-fetch.js';
import type { CredentialSource } from '../types.js';

/** Seconds-scale backstop; a connector call ends at the orchestrator's deadline (its signal) well before. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Checkout.com's documented API hosts, shared and merchant-specific ({subdomain}.api.checkout.com,
 * the subdomain being the first characters of the client id), live and sandbox: an api_base_url naming one is no detour.
 */

/**
 * The SDK loads all of its API modules and axios: it is imported on first use, so the CLI and the
 * parts that only read the provider list (credential fields, routing rows) do not pay for it.
 */
const checkoutSdk = lazyImport(() => import('checkout-sdk-node').then((m) => m.default));

interface CallContext {
  send: typeof fetch;
  signal: AbortSignal;
}

const callContext = new AsyncLocalStorage<CallContext>();
let scopedFetchInstalled = false;

/**
 * The SDK calls `fetch` itself. Outside a Checkout.com call the global fetch is the original,
 * untouched; inside one (and only there) it is the account's provider fetch with the call's signal.
 * The provider fetch runs outside the context, so its own use of the global fetch is the original.
 */
function installScopedFetch(): void {
  if (scopedFetchInstalled) return;
  scopedFetchInstalled = true;
  const original = globalThis.fetch;
  globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const ctx = callContext.getStore();
    if (!ctx) return original(input, init);
    const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
    const signal = AbortSignal.any([ctx.signal, timeout, ...(init?.signal ? [init.signal] : [])]);
    return callContext.exit(() => ctx.send(input, { ...init, signal }));
  }) as typeof fetch;
}

export interface CheckoutAccount {
  client: Checkout;
  /** Runs an SDK call through the account's fetch, stopped when `signal` aborts. */
  call<T>(signal: AbortSignal, run: (client: Checkout) => Promise<T>): Promise<T>;
  processingChannelId: string | undefined;
  signatureKey: string | undefined;
  mode: 'test' | 'live';
}

export interface CheckoutClients {
  /** undefined when the account has no stored secret key. */
  /** `via` sends instead of the account's fetch, for a URL its rule allows: a vault's forwarding fetch for a forwarded card. */
  forAccount(accountId: string, via?: typeof fetch): Promise<CheckoutAccount | undefined>;
}

/** The SDK's options for an account: its base URL as `host`, else its subdomain, else the shared host. */
export function sdkOptions(values: Record<string, string>): ConstructorParameters<typeof Checkout>[1] {
  const common = { timeout: REQUEST_TIMEOUT_MS };
  if (values.api_base_url) return { ...common, host: values.api_base_url.replace(/\/+$/, '') };
  if (values.subdomain) return { ...common, subdomain: values.subdomain };
  return { ...common, useLegacyDomain: true };
}

/**
 * Clients are cached by account id, key, subdomain and base URL, so a rotated key gets a new client.
 * The SDK prefers CKO_SECRET / CKO_SECRET_KEY from the process environment over the key it is given:
 * with either set, every account would act with that one key, so no client is made at all.
 */
export function createCheckoutClients(credentials: CredentialSource, network: ProviderNetwork): CheckoutClients {
  installScopedFetch();
  const cache = new Map<string, Checkout>();
  return {
    async forAccount(accountId, via) {
      if (process.env.CKO_SECRET || process.env.CKO_SECRET_KEY) return undefined;
      const creds = await credentials.get(accountId);
      const v = creds?.values;
      if (!creds || !v?.secret_key) return undefined;
      const cacheKey = [accountId, v.secret_key, v.subdomain ?? '', v.api_base_url ?? ''].join('\u0000');
      let client = cache.get(cacheKey);
      if (!client) {
        for (const k of cache.keys()) if (k.startsWith(`${accountId}\u0000`)) cache.delete(k);
        const Sdk = await checkoutSdk.load();
        try {
          client = new Sdk(v.secret_key, sdkOptions(v));
        } catch {
          // The SDK refuses a malformed subdomain (its ValueError): the account cannot be reached.
          return undefined;
        }
        cache.set(cacheKey, client);
      }
      const send = providerFetch(v.api_base_url, { ...network, officialHost: CHECKOUT_OFFICIAL_HOST }, via);
      const bound = client;
      return {
        client,
        call: (signal, run) => callContext.run({ send, signal }, () => run(bound)),
        processingChannelId: v.processing_channel_id,
        signatureKey: v.webhook_signature_key,
        mode: creds.mode,
      };
    },
  };
}
