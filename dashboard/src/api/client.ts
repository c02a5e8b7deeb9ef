// The one way the dashboard talks to its server: JSON over /dashboard/api with the session cookie
// (sent by the browser, never read here) and, on every state-changing call, the session's CSRF
// token in x-csrf-token. Errors arrive in the contract's envelope and become ApiError.

export const API_BASE = '/dashboard/api';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

let csrfToken: string | undefined;
let onUnauthorized: (() => void) | undefined;

/** Set from each session answer; a new sign-in brings a new token. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Called when the server says the session is gone (signed out elsewhere, expired). */
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

type Query = Record<string, string | number | boolean | undefined | null>;

/** A path with its query, leaving out empty values. */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

async function call<T>(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...extra };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(`${API_BASE}${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? safeJson(text) : undefined;
  if (!res.ok) throw toError(res, json, path);
  return json as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function toError(res: Response, json: unknown, path: string): ApiError {
  const envelope = (json ?? {}) as { error?: { code?: string; message?: string; param?: string }; request_id?: string };
  const e = envelope.error;
  // A sign-in that fails is a 401 too; only other calls mean the session has ended.
  if (res.status === 401 && !path.startsWith('/sign-in') && !path.startsWith('/session')) onUnauthorized?.();
  return new ApiError(
    res.status,
    e?.code ?? `http_${res.status}`,
    e?.message ?? `The server answered ${res.status} ${res.statusText}`,
    e?.param,
    envelope.request_id ?? res.headers.get('x-request-id') ?? undefined,
  );
}

/**
 * A fresh Idempotency-Key for one action a person confirms: a second click or a retry after a lost
 * answer sends the same key, so money moves once. (getRandomValues works without TLS too.)
 */
export function idempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `dash_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export const api = {
  get: <T>(path: string, query?: Query) => call<T>('GET', withQuery(path, query)),
  post: <T>(path: string, body: unknown = {}, headers?: Record<string, string>) => call<T>('POST', path, body, headers),
  put: <T>(path: string, body: unknown) => call<T>('PUT', path, body),
  patch: <T>(path: string, body: unknown) => call<T>('PATCH', path, body),
  delete: <T>(path: string) => call<T>('DELETE', path),
};
