import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Agent } from 'undici';
import { addressProblem, createGuardedAgent, type Mode, type Resolver, type UrlPolicy } from '../platform/net/index.js';

/** The contract keeps the first 2 KB of a response body. */
export const RESPONSE_BODY_LIMIT = 2048;

export interface AttemptRequest {
  url: string;
  mode: Mode;
  body: string;
  /** Exactly the headers to send, in order. */
  headers: Array<[string, string]>;
}

export interface AttemptResult {
  /** Absent when no response arrived. */
  status?: number;
  responseBody?: string;
  /** Why the request did not complete. */
  error?: string;
  /** The response's Retry-After header, as sent. */
  retryAfter?: string;
  durationMs: number;
}

export interface Sender {
  send(request: AttemptRequest): Promise<AttemptResult>;
  close(): Promise<void>;
}

export interface SenderOptions {
  timeoutMs: number;
  policy: UrlPolicy;
  /** Name resolution at connect time; node:dns unless a test stands in for a name that resolves inside. */
  resolve?: Resolver;
}

class TimedOut extends Error {}

function describe(err: NodeJS.ErrnoException, timeoutMs: number): string {
  if (err instanceof TimedOut) return `timed out after ${timeoutMs} ms`;
  switch (err.code) {
    case 'ECONNREFUSED': return 'connection refused (ECONNREFUSED)';
    case 'ECONNRESET': case 'UND_ERR_SOCKET': return 'connection reset by the receiver (ECONNRESET)';
    case 'ENOTFOUND': return 'host not found (ENOTFOUND)';
    case 'EAI_AGAIN': return 'DNS lookup failed temporarily (EAI_AGAIN)';
    case 'EADDRNOTALLOWED': return `address not allowed: ${err.message}`;
    default: return err.code ? `${err.message} (${err.code})` : err.message;
  }
}

/** An endpoint URL as a request needs it: parsed once, its literal address checked once. */
interface Target {
  origin: string;
  path: string;
  /** Why a literal address in the URL may not be reached; a name is checked at each connect instead. */
  problem?: string;
}

// Endpoint URLs are few and live long; the bound only keeps a stream of edited URLs from growing it.
const MAX_TARGETS = 10_000;

/** Postgres text cannot hold NUL; the rest of a binary body is kept as decoded. */
function printable(bytes: Buffer): string {
  return bytes.toString('utf8').replace(/\u0000/g, '');
}

/** A header's value among undici's raw headers (name, value, name, value, ...); the first if repeated. */
function rawHeader(raw: Buffer[], name: string): string | undefined {
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length === name.length && raw[i].toString('latin1').toLowerCase() === name) return raw[i + 1].toString('latin1');
  }
  return undefined;
}

/**
 * Makes one HTTP POST per attempt on undici's pooled client: kept-alive connections per origin,
 * each opened through the address policy's connect hook (createGuardedAgent), one pool per mode.
 * Redirects are not followed, so a 3xx is a failure like any non-2xx. A kept-alive connection the
 * receiver has just closed is rarely met: undici retires an idle connection before the keep-alive
 * time-out the receiver announced (4 s when it announces none); one met anyway is a failed attempt,
 * retried on the schedule. WEBHOOK_TIMEOUT_MS bounds the whole attempt: lookup, connect, TLS,
 * sending and the response up to its first 2 KB.
 */
export function createSender(options: SenderOptions): Sender {
  const pool = (mode: Mode) => createGuardedAgent((a) => addressProblem(a, mode, options.policy), options.resolve);
  const agents: Record<Mode, Agent> = { test: pool('test'), live: pool('live') };

  const targets = new Map<string, Target>();
  function target(url: string, mode: Mode): Target {
    const key = `${mode} ${url}`;
    let found = targets.get(key);
    if (found === undefined) {
      const parsed = new URL(url);
      // A literal address never goes through the lookup, so it is checked here.
      const host = parsed.hostname.replace(/^\[|\]$/g, '');
      found = {
        origin: parsed.origin,
        path: `${parsed.pathname}${parsed.search}`,
        problem: isIP(host) ? addressProblem(host, mode, options.policy) : undefined,
      };
      if (targets.size >= MAX_TARGETS) targets.clear();
      targets.set(key, found);
    }
    return found;
  }

  /**
   * One exchange through undici's dispatcher API (no stream per response): the status, Retry-After
   * and the body's first 2 KB, after which, or at the deadline, the connection is dropped.
   */
  function once(request: AttemptRequest, to: Target): Promise<Omit<AttemptResult, 'durationMs'>> {
    return new Promise((resolve) => {
      let abort: ((err?: Error) => void) | undefined;
      let status: number | undefined;
      let retryAfter: string | undefined;
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const finish = (result: Omit<AttemptResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      // What arrived of the body is kept: the status is the answer.
      const answered = () => finish({ status, responseBody: printable(Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT)), retryAfter });
      const failed = (err: NodeJS.ErrnoException) => (status === undefined ? finish({ error: describe(err, options.timeoutMs) }) : answered());
      const timer = setTimeout(() => {
        failed(new TimedOut());
        abort?.(new TimedOut());
      }, options.timeoutMs);
      agents[request.mode].dispatch({
        origin: to.origin, path: to.path, method: 'POST', headers: request.headers.flat(), body: request.body,
      }, {
        // Reported timed out while still waiting for a connection: it is never written.
        onConnect: (a) => (settled ? a(new TimedOut()) : (abort = a)),
        onHeaders: (statusCode, raw) => {
          status = statusCode;
          retryAfter = rawHeader(raw as Buffer[], 'retry-after');
          return true;
        },
        onData: (chunk) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size < RESPONSE_BODY_LIMIT) return true;
          answered();
          abort?.(new Error('the first 2 KB of the response are enough'));
          return false;
        },
        onComplete: answered,
        onError: failed,
      });
    });
  }

  return {
    async send(request) {
      const started = performance.now();
      const to = target(request.url, request.mode);
      if (to.problem !== undefined) return { error: `address not allowed: ${to.problem}`, durationMs: 0 };
      const result = await once(request, to);
      return { ...result, durationMs: Math.round(performance.now() - started) };
    },
    async close() {
      await Promise.all([agents.test.destroy(), agents.live.destroy()]);
    },
  };
}
