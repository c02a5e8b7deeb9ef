import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { readBaseUrl } from '../services/platform/base-url-file.js';
import { operatorTokenPath } from '../services/platform/operator-token.js';

/** Where the CLI finds the deployment, the operator token, and how it talks to /manage/v1. */

export const DEFAULT_URL = 'http://127.0.0.1:8080';
const MANAGEMENT_PREFIX = '/manage/v1';
// Long enough for a cold database, short enough that a hung proxy does not hang a script forever.
const REQUEST_TIMEOUT_MS = 30_000;

type Env = Record<string, string | undefined>;

/** The contract's error envelope, as the API sends it (or as the CLI makes one for a foreign reply). */
export interface ErrorBody {
  error: { type: string; code: string; message: string; param?: string };
  request_id?: string;
}

/** The API answered with an error; `body` is what --json prints. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly body: ErrorBody, readonly hint?: string) {
    super(body.error.message);
  }
  get code(): string {
    return this.body.error.code;
  }
}

/** A failure before or outside the API (no token, nothing listening): exit 1 with a plain message. */
export class CliError extends Error {}

/** A bad --api-url is a usage mistake like a missing flag, so it exits 2 with the usage. */
export class BadUrlError extends Error {}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * `--api-url`, else SVC_URL, else the address `npm start` wrote to DATA_DIR (in `cwd`), else its
 * default address; without a trailing slash.
 */
export function resolveBaseUrl(flag: string | undefined, env: Env, cwd?: string): string {
  const written = cwd === undefined ? undefined : readBaseUrl(resolve(cwd, nonEmpty(env.DATA_DIR) ?? '.data'));
  const raw = nonEmpty(flag) ?? nonEmpty(env.SVC_URL) ?? written ?? DEFAULT_URL;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new BadUrlError(`not a valid URL: ${raw}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new BadUrlError(`the URL must use http or https: ${raw}`);
  }
  if (parsed.search || parsed.hash) throw new BadUrlError(`the URL must not have a query or fragment: ${raw}`);
  // A path is kept so a deployment behind a proxy at e.g. /svc works.
  return raw.replace(/\/+$/, '');
}

export interface OperatorToken {
  token: string;
  /** Where it came from, for messages; never the token itself. */
  source: string;
}

const HOW_TO_PROVIDE =
  'Set SVC_OPERATOR_TOKEN, or run svc from the folder where `npm start` runs ' +
  '(it writes the token to <DATA_DIR or .data>/operator-token).';

/**
 * SVC_OPERATOR_TOKEN, else the file `npm start` wrote. There is deliberately no --token flag:
 * argv is visible to every user on the machine through ps.
 */
export async function resolveToken(env: Env, cwd: string): Promise<OperatorToken> {
  const fromEnv = nonEmpty(env.SVC_OPERATOR_TOKEN);
  if (fromEnv !== undefined) return checked({ token: fromEnv, source: 'SVC_OPERATOR_TOKEN' });
  // Same default and trimming as the service's own config, so both agree on the folder.
  const path = operatorTokenPath(resolve(cwd, nonEmpty(env.DATA_DIR) ?? '.data'));
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CliError(`no operator token: ${path} does not exist. ${HOW_TO_PROVIDE}`);
    throw new CliError(`cannot read the operator token from ${path} (${code ?? String(err)}). ${HOW_TO_PROVIDE}`);
  }
  const token = nonEmpty(text);
  if (token === undefined) throw new CliError(`no operator token: ${path} is empty. ${HOW_TO_PROVIDE}`);
  return checked({ token, source: path });
}

// fetch rejects such a header with an error that quotes its value, which would print the token.
function checked(t: OperatorToken): OperatorToken {
  if (!/^[\x21-\x7e]+$/.test(t.token)) {
    throw new CliError(`the operator token from ${t.source} has spaces or non-ASCII characters; check it.`);
  }
  return t;
}

export interface ManagementClient {
  readonly baseUrl: string;
  /** The response body of a 2xx reply; any other reply throws ApiError. */
  request(method: 'GET' | 'POST' | 'PUT' | 'PATCH', path: string, body?: unknown): Promise<any>;
  /** POSTs a file's text as it is (a settlement report: text/csv); answers like request. */
  upload(path: string, text: string, contentType: string): Promise<any>;
}

function describeNetworkError(err: unknown, url: string): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `no answer from ${url} within ${REQUEST_TIMEOUT_MS / 1000}s`;
  }
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return `cannot connect to ${url}: connection refused. Is svc running? Start it with \`npm start\`, ` +
        'or point --api-url / SVC_URL at the deployment.';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot connect to ${url}: host not found. Check --api-url / SVC_URL.`;
    default:
      return `cannot connect to ${url}: ${cause?.message ?? cause?.code ?? (err as Error).message}`;
  }
}

function isErrorBody(value: unknown): value is ErrorBody {
  const error = (value as ErrorBody | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

// Something other than svc answered (a proxy, another app on the port): say so instead of guessing.
function foreignReply(status: number, url: string): ApiError {
  return new ApiError(status, {
    error: {
      type: 'api_error',
      code: `http_${status}`,
      message: `unexpected reply from ${url} (HTTP ${status}); is --api-url / SVC_URL the svc gateway?`,
    },
  });
}

export function createManagementClient(
  baseUrl: string, token: string, fetchFn: typeof fetch = fetch,
): ManagementClient {
  return createGatewayClient(baseUrl, MANAGEMENT_PREFIX, token, fetchFn);
}

/** The same client for another prefix: `/v1` with a merchant's API key (svc listen, svc trigger). */
export function createGatewayClient(
  baseUrl: string, prefix: string, token: string, fetchFn: typeof fetch = fetch,
): ManagementClient {
  async function send(method: string, path: string, body: string | undefined, contentType: string | undefined): Promise<any> {
    const url = `${baseUrl}${prefix}${path}`;
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (contentType !== undefined) headers['content-type'] = contentType;
    let res: Response;
    let text: string;
    try {
      res = await fetchFn(url, { method, headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      text = await res.text();
    } catch (err) {
      throw new CliError(describeNetworkError(err, baseUrl));
    }
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      throw foreignReply(res.status, baseUrl);
    }
    if (res.ok && parsed !== null && typeof parsed === 'object') return parsed;
    if (!res.ok && isErrorBody(parsed)) throw new ApiError(res.status, parsed);
    throw foreignReply(res.status, baseUrl);
  }
  return {
    baseUrl,
    // Bodyless POSTs (verify, revoke) must not claim JSON: the gateway rejects an empty JSON body.
    request: (method, path, body) => send(method, path, body === undefined ? undefined : JSON.stringify(body),
      body === undefined ? undefined : 'application/json'),
    upload: (path, text, contentType) => send('POST', path, text, contentType),
  };
}
