// One @mollie/api-client per account, key and base URL, pointed at Mollie's API or at the account's
// api_base_url (a local stand-in). The SDK sends with its own copy of node-fetch through an https
// agent whose trusted roots are a CA bundle built into it (NODE_EXTRA_CA_CERTS does not reach it),
// takes no fetch, no agent and no cancellation, and repeats a 5xx answer itself. So the SDK is
// loaded once with its `node-fetch` replaced (require.cache, Node's documented module cache) by a
// transport that exists only inside a Mollie call: the account's provider fetch (provider-fetch.ts:
// the address policy, no redirects, no host text) with the call's deadline. A call also ends at its
// deadline while the SDK waits between its own repeats (untilAborted).
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import type { MollieClient } from '@mollie/api-client';
import { MOLLIE_OFFICIAL_HOST } from './facts.js';
import { providerFetch, type ProviderNetwork } from '../provider-fetch.js';
import type { CredentialSource } from '../types.js';

/** Seconds-scale backstop; a connector call ends at the orchestrator's deadline (its signal) well before. */
const REQUEST_TIMEOUT_MS = 30_000;


/** Mollie's API version path, which the SDK's apiEndpoint includes. */
const API_PATH = '/v2/';

interface CallContext {
  send: typeof fetch;
  signal: AbortSignal;
}

const callContext = new AsyncLocalStorage<CallContext>();

/** Thrown when a call's deadline passes; outcomes.ts reads it as no answer (a time-out). */
export class MollieDeadlineError extends Error {
  override readonly name = 'MollieDeadlineError';
  constructor() {
    super('Mollie did not answer before the deadline');
  }
}

/**
 * What the SDK calls as node-fetch: `(url, {agent, method, headers, body})`. Outside a Mollie
 * call there is no account and so no policy to send under: refused rather than sent unguarded.
 */
const OUTSIDE_A_CALL = 'A Mollie request outside an account call is refused';

function scopedTransport(url: URL | string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const ctx = callContext.getStore();
  if (!ctx) return Promise.reject(new Error(OUTSIDE_A_CALL));
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]);
  const { method, headers, body } = init;
  return callContext.exit(() => ctx.send(String(url), { method, headers, body, signal }));
}

const require = createRequire(import.meta.url);
let sdk: typeof import('@mollie/api-client') | undefined;

/**
 * The SDK with its transport replaced, loaded on first use (the CLI and the parts that only read the
 * provider list never load it). Its node-fetch entry is put back at once: nothing else sees ours.
 */
function loadSdk(): typeof import('@mollie/api-client') {
  if (sdk) return sdk;
  const main = require.resolve('@mollie/api-client');
  if (require.cache[main]) throw new Error('@mollie/api-client was loaded before the Mollie connector replaced its transport');
  const nodeFetch = createRequire(main).resolve('node-fetch');
  const previous = require.cache[nodeFetch];
  require.cache[nodeFetch] = { id: nodeFetch, filename: nodeFetch, loaded: true, exports: scopedTransport } as unknown as NodeJS.Module;
  try {
    sdk = require(main) as typeof import('@mollie/api-client');
  } finally {
    if (previous) require.cache[nodeFetch] = previous;
    else delete require.cache[nodeFetch];
  }
  return sdk;
}

let verified: Promise<void> | undefined;

/**
 * The SDK, once shown to send through our transport: a request made outside any call must come
 * back refused in our words. A later SDK that stops taking `node-fetch` by that name fails here,
 * at the first Mollie call, instead of sending without the address policy and the deadline.
 */
async function verifiedSdk(): Promise<typeof import('@mollie/api-client')> {
  const loaded = loadSdk();
  verified ??= callContext.exit(() => loaded.createMollieClient({ apiKey: `test_${'0'.repeat(30)}` }).methods.list()).then(
    () => { throw new Error('@mollie/api-client answered without our transport'); },
    (err: unknown) => {
      if (!(err instanceof Error && err.message.includes(OUTSIDE_A_CALL))) throw new Error('@mollie/api-client does not send through our transport');
    },
  );
  await verified;
  return loaded;
}

/** `run` settled, or a MollieDeadlineError as soon as `signal` aborts (the SDK may be sleeping between repeats). */
function untilAborted<T>(signal: AbortSignal, run: () => Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(new MollieDeadlineError());
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(new MollieDeadlineError());
    signal.addEventListener('abort', stop, { once: true });
    run().then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

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
        call: (signal, run) => callContext.run({ send, signal }, () => untilAborted(signal, () => run(bound))),
        webhookUrl: webhookUrlOf(v, accountId),
        mode: creds.mode,
      };
    },
  };
}
