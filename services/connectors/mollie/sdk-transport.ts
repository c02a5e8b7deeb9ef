// The adapter between @mollie/api-client and the account's provider fetch. The SDK (4.6.0, read
// from its source) offers no option for a fetch, an agent or a cancellation: its network client
// calls the `node-fetch` it requires itself, through an https agent whose trusted roots are a CA
// bundle compiled into it (NODE_EXTRA_CA_CERTS does not reach it), and repeats a 5xx answer
// itself. So the SDK is loaded once with that `node-fetch` replaced, through Node's documented
// module cache (require.cache), by a transport that exists only inside a Mollie call: the
// account's provider fetch (the address policy, no redirects, no host text) with the call's
// deadline. Two guards keep an SDK upgrade from bypassing it silently: the first Mollie call of a
// process proves a request goes through it (verifiedSdk), and test/mollie-transport.test.ts
// asserts each kind of call reaches the stand-in only through the account's provider fetch.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';

/** Seconds-scale backstop; a connector call ends at the orchestrator's deadline (its signal) well before. */
const REQUEST_TIMEOUT_MS = 30_000;

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

/** Outside a Mollie call there is no account and so no policy to send under: refused rather than sent unguarded. */
const OUTSIDE_A_CALL = 'A Mollie request outside an account call is refused';

/** What the SDK calls as node-fetch: `(url, {agent, method, headers, body})`; its agent is dropped. */
function scopedTransport(url: URL | string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const ctx = callContext.getStore();
  if (!ctx) return Promise.reject(new Error(OUTSIDE_A_CALL));
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]);
  const { method, headers, body } = init;
  return callContext.exit(() => ctx.send(String(url), { method, headers, body, signal }));
}

const require = createRequire(import.meta.url);
type MollieSdk = typeof import('@mollie/api-client');
let sdk: MollieSdk | undefined;

/**
 * The SDK with its transport replaced, loaded on first use (the CLI and the parts that only read the
 * provider list never load it). Its node-fetch entry is put back at once: nothing else sees ours.
 */
function loadSdk(): MollieSdk {
  if (sdk) return sdk;
  const main = require.resolve('@mollie/api-client');
  if (require.cache[main]) throw new Error('@mollie/api-client was loaded before the Mollie connector replaced its transport');
  const nodeFetch = createRequire(main).resolve('node-fetch');
  const previous = require.cache[nodeFetch];
  require.cache[nodeFetch] = { id: nodeFetch, filename: nodeFetch, loaded: true, exports: scopedTransport } as unknown as NodeJS.Module;
  try {
    sdk = require(main) as MollieSdk;
  } finally {
    if (previous) require.cache[nodeFetch] = previous;
    else delete require.cache[nodeFetch];
  }
  return sdk;
}

/** Where the proof's request would go if the SDK bypassed us: the discard port on loopback, never Mollie. */
const NOWHERE = 'http://127.0.0.1:9/v2/';
let verified: Promise<void> | undefined;

/**
 * The SDK, once shown to send through our transport: a request made outside any call must come
 * back refused in our words. A later SDK that stops taking `node-fetch` by that name fails here,
 * at the first Mollie call, instead of sending without the address policy and the deadline.
 */
export async function verifiedSdk(): Promise<MollieSdk> {
  const loaded = loadSdk();
  verified ??= callContext.exit(() => loaded.createMollieClient({ apiKey: `test_${'0'.repeat(30)}`, apiEndpoint: NOWHERE }).methods.list()).then(
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

/** Runs `run`'s SDK requests through `send`, ended when `signal` aborts, even while the SDK waits between repeats. */
export function sendingThrough<T>(send: typeof fetch, signal: AbortSignal, run: () => Promise<T>): Promise<T> {
  return callContext.run({ send, signal }, () => untilAborted(signal, run));
}
