// The one home of "a fetch for this account's base URL", which both SDK clients send through.
// No provider request follows a redirect (provider APIs do not redirect; a redirect is how an
// allowed host would point the request elsewhere). A merchant-chosen base URL
// (provider-base-url.ts) is checked again before each request, every address its name resolves to
// is checked at connect time (DNS rebinding), and what its host answers is never passed on as
// text: an error's body becomes one generic message naming the status, and refused, reset,
// timed-out and policy-refused connections are one same message, so no internal body is readable
// and open and closed ports cannot be told apart.
import { Agent, fetch as undiciFetch } from 'undici';
import type { Logger } from '../../platform/index.js';
import { AddressNotAllowedError, addressProblem, guardedLookup, type Resolver } from '../../platform/net/index.js';
import { baseUrlProblem, baseUrlTrust, PROVIDER_URL_POLICY } from './provider-base-url.js';

export interface ProviderFetchOptions {
  /** The provider's own API hosts (its definition's officialHost): an api_base_url there is no detour. */
  officialHost?: RegExp;
  /** PROVIDER_BASE_URL_ALLOWLIST, as config.ts parsed it. */
  allowlist: readonly string[];
  /** Name resolution at connect time; node:dns unless a test stands in for a rebinding name. */
  resolve?: Resolver;
  /** Where a refusal's real reason goes: the operator's log, since the caller only hears UNREACHABLE_MESSAGE. */
  logger?: Pick<Logger, 'warn'>;
}

/** What a licensed connector is given about the network: the operator's allow-list (and a test's resolver). */
export type ProviderNetwork = Omit<ProviderFetchOptions, 'officialHost'>;

/** A provider API answer is small; a merchant-chosen host may not make the part buffer more. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export const UNREACHABLE_MESSAGE = "the provider at the account's api_base_url could not be reached";
export const answeredMessage = (status: number) => `the provider at the account's api_base_url answered HTTP ${status}`;

/** Refused, reset, timed out, or refused by the address policy: deliberately one error. */
export class ProviderUnreachableError extends Error {
  override readonly name = 'ProviderUnreachableError';
  constructor() {
    super(UNREACHABLE_MESSAGE);
  }
}

let sharedAgent: Agent | undefined;

function guardedAgent(resolve?: Resolver): Agent {
  const make = () => new Agent({
    connect: { lookup: guardedLookup((address) => addressProblem(address, 'live', PROVIDER_URL_POLICY), resolve) },
  });
  if (resolve) return make();
  return (sharedAgent ??= make());
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/** Both SDKs' error shapes at once (Stripe reads `error`, Adyen `message`), with no text of the host's. */
function genericAnswer(status: number, message: string): Response {
  const body = JSON.stringify({ error: { type: 'api_error', message }, status, message });
  return new Response(body, { status, headers: { 'content-type': 'application/json' } });
}

async function readCapped(res: { body: AsyncIterable<Uint8Array> | null }): Promise<string | undefined> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += (chunk as Uint8Array).byteLength;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Uint8Array);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

type HostAnswer = Awaited<ReturnType<typeof undiciFetch>>;

/**
 * What a merchant-chosen host answered, as the SDK may see it: a JSON success as it is, anything
 * else one generic answer naming the status, none of the host's text.
 */
export async function withoutHostText(res: HostAnswer): Promise<Response> {
  if (res.status < 200 || res.status >= 300 || NULL_BODY.has(res.status)) {
    await res.body?.cancel();
    if (NULL_BODY.has(res.status)) return new Response(null, { status: res.status });
    return genericAnswer(res.status, answeredMessage(res.status));
  }
  const text = await readCapped(res);
  if (text !== undefined && isJson(text)) return new Response(text, { status: res.status, headers: { 'content-type': 'application/json' } });
  return genericAnswer(502, `${answeredMessage(res.status)} without a JSON body`);
}

/** Why a request to a merchant-chosen host failed, for the operator: the policy's words or the socket's code. */
function failureReason(err: unknown): string {
  const cause = (err as { cause?: Error & { code?: string } }).cause;
  if (cause instanceof AddressNotAllowedError) return cause.message;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

function guardedFetch(apiBaseUrl: string, opts: ProviderFetchOptions): typeof fetch {
  const dispatcher = guardedAgent(opts.resolve);
  // The host alone: a URL's user-info or query could carry what must never be logged.
  const host = URL.canParse(apiBaseUrl) ? new URL(apiBaseUrl).host : 'an unparsable api_base_url';
  const refused = (reason: string) => {
    opts.logger?.warn({ host, reason }, 'provider request refused or unreachable');
    return new ProviderUnreachableError();
  };
  return async (input, init) => {
    // Stored before the policy, or the allow-list shrank since: checked on every request.
    const problem = baseUrlProblem(apiBaseUrl, opts.allowlist);
    if (problem !== undefined) throw refused(problem);
    const url = input instanceof Request ? input.url : String(input);
    try {
      return await withoutHostText(await undiciFetch(url, {
        method: init?.method, headers: init?.headers as Record<string, string>, body: init?.body as string | undefined,
        signal: init?.signal ?? undefined, redirect: 'manual', dispatcher,
      }));
    } catch (err) {
      // The caller's deadline stays an abort, which the SDKs report as their time-out.
      if (init?.signal?.aborted) throw err;
      throw refused(failureReason(err));
    }
  };
}

/** The fetch an account's SDK client sends with: its base URL decides which rules apply. */
export function providerFetch(apiBaseUrl: string | undefined, opts: ProviderFetchOptions): typeof fetch {
  if (apiBaseUrl !== undefined && baseUrlTrust(opts.officialHost, apiBaseUrl, opts.allowlist) === 'merchant') {
    return guardedFetch(apiBaseUrl, opts);
  }
  return (input, init) => fetch(input, { ...init, redirect: 'manual' });
}
