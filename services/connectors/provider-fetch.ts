// The one home of "a fetch for this account", which every connector's and vault's SDK sends
// through: each URL the SDK actually requests, however its credentials shaped it (a host built
// from a live URL prefix or a subdomain), must be at the account's api_base_url or the provider's
// own hosts and pass the address policy (provider-base-url.ts, requestVerdict); every address its
// name resolves to is checked at connect time (DNS rebinding), official hosts included, so an
// official-looking name reaches nothing internal either. No provider request follows a redirect
// (provider APIs do not redirect; a redirect is how an allowed host would point the request
// elsewhere). What a merchant-chosen host answers is never passed on as text: an error's body
// becomes one generic message naming the status. Refused, reset, timed-out and policy-refused
// connections are one same message, so no internal body is readable and open and closed ports
// cannot be told apart. Only an origin the operator listed is sent to as it is.
import { type Agent, fetch as undiciFetch } from 'undici';
import type { Logger } from '../platform/logger.js';
import { AddressNotAllowedError, addressProblem, createGuardedAgent, type Resolver } from '../platform/net/index.js';
import { PROVIDER_URL_POLICY, requestVerdict } from './provider-base-url.js';

export interface ProviderFetchOptions {
  /** The provider's own API hosts (its definition's officialHost): where requests go without an api_base_url. */
  officialHost: RegExp;
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

export const UNREACHABLE_MESSAGE = "the provider at the account's address could not be reached";
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
  const make = () => createGuardedAgent((address) => addressProblem(address, 'live', PROVIDER_URL_POLICY), resolve);
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

/** A response of the undici package as the global fetch's Response, which every SDK was written against. */
function asResponse(res: HostAnswer): Response {
  const body = NULL_BODY.has(res.status) ? null : (res.body as ReadableStream<Uint8Array> | null);
  return new Response(body, { status: res.status, statusText: res.statusText, headers: [...res.headers] });
}

type Sendable = { method?: string; headers?: Record<string, string>; body?: string | Uint8Array; signal?: AbortSignal };

/** What is sent: a Request's own method, headers, body and signal unless `init` says otherwise. */
async function sendable(input: Parameters<typeof fetch>[0], init: RequestInit | undefined): Promise<Sendable> {
  const req = input instanceof Request ? input : undefined;
  const headers = init?.headers ?? req?.headers;
  let body = init?.body as string | Uint8Array | null | undefined;
  if (body === undefined && req && req.body) body = new Uint8Array(await req.arrayBuffer());
  return {
    method: init?.method ?? req?.method, headers: headers && Object.fromEntries(new Headers(headers)),
    body: body ?? undefined, signal: init?.signal ?? req?.signal,
  };
}

/**
 * The fetch an account's SDK client sends with; the requested URL decides which rules apply.
 * `via` (a vault's forwarding fetch, vault-forwarding.ts) sends instead, once the URL passed the
 * same rule: a vault is only ever asked to call where the account itself may be called.
 */
export function providerFetch(apiBaseUrl: string | undefined, opts: ProviderFetchOptions, via?: typeof fetch): typeof fetch {
  const dispatcher = guardedAgent(opts.resolve);
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    // The host alone: a URL's user-info or query could carry what must never be logged.
    const host = URL.canParse(url) ? new URL(url).host : 'an unparsable URL';
    const refused = (reason: string) => {
      opts.logger?.warn({ host, reason }, 'provider request refused or unreachable');
      return new ProviderUnreachableError();
    };
    const verdict = requestVerdict(url, apiBaseUrl, opts.officialHost, opts.allowlist);
    if ('problem' in verdict) throw refused(verdict.problem);
    if (via) return via(input, init);
    const operator = verdict.trust === 'operator';
    const request = await sendable(input, init);
    try {
      const res = await undiciFetch(url, {
        ...request, redirect: 'manual',
        // An origin the operator listed is theirs to vouch for (a local stand-in on loopback).
        ...(!operator && { dispatcher }),
      });
      return verdict.trust === 'merchant' ? await withoutHostText(res) : asResponse(res);
    } catch (err) {
      // The caller's deadline stays an abort, which the SDKs report as their time-out; an
      // operator-listed origin's failure is as the plain fetch gives it.
      if (request.signal?.aborted || operator) throw err;
      throw refused(failureReason(err));
    }
  };
}
