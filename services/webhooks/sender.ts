import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import { performance } from 'node:perf_hooks';
import { addressProblem, createSafeAgents, type Mode, type SafeAgents, type UrlPolicy } from '../platform/net/index.js';

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
  close(): void;
}

export interface SenderOptions {
  timeoutMs: number;
  policy: UrlPolicy;
}

class TimedOut extends Error {}

function describe(err: NodeJS.ErrnoException, timeoutMs: number): string {
  if (err instanceof TimedOut) return `timed out after ${timeoutMs} ms`;
  switch (err.code) {
    case 'ECONNREFUSED': return 'connection refused (ECONNREFUSED)';
    case 'ECONNRESET': return 'connection reset by the receiver (ECONNRESET)';
    case 'ENOTFOUND': return 'host not found (ENOTFOUND)';
    case 'EAI_AGAIN': return 'DNS lookup failed temporarily (EAI_AGAIN)';
    case 'EADDRNOTALLOWED': return `address not allowed: ${err.message}`;
    default: return err.code ? `${err.message} (${err.code})` : err.message;
  }
}

/** An endpoint URL as a request needs it: parsed once, its literal address checked once. */
interface Target {
  https: boolean;
  options: http.RequestOptions;
  /** Why a literal address in the URL may not be reached; a name is checked at each connect instead. */
  problem?: string;
}

// Endpoint URLs are few and live long; the bound only keeps a stream of edited URLs from growing it.
const MAX_TARGETS = 10_000;

/** Postgres text cannot hold NUL; the rest of a binary body is kept as decoded. */
function printable(bytes: Buffer): string {
  return bytes.toString('utf8').replace(/\u0000/g, '');
}

/**
 * Makes one HTTP POST per attempt. Redirects are not followed (node:http never does), so a 3xx is
 * a failure like any non-2xx. WEBHOOK_TIMEOUT_MS bounds the whole attempt: lookup, connect, TLS,
 * sending and the response up to its first 2 KB.
 */
export function createSender(options: SenderOptions): Sender {
  const agents: Record<Mode, SafeAgents> = {
    test: createSafeAgents((a) => addressProblem(a, 'test', options.policy)),
    live: createSafeAgents((a) => addressProblem(a, 'live', options.policy)),
  };

  const targets = new Map<string, Target>();
  function target(url: string, mode: Mode): Target {
    const key = `${mode} ${url}`;
    let found = targets.get(key);
    if (found === undefined) {
      const parsed = new URL(url);
      // A literal address never goes through the lookup, so it is checked here.
      const host = parsed.hostname.replace(/^\[|\]$/g, '');
      found = {
        https: parsed.protocol === 'https:',
        options: urlToHttpOptions(parsed),
        problem: isIP(host) ? addressProblem(host, mode, options.policy) : undefined,
      };
      if (targets.size >= MAX_TARGETS) targets.clear();
      targets.set(key, found);
    }
    return found;
  }

  function once(request: AttemptRequest, to: Target, deadline: number): Promise<Omit<AttemptResult, 'durationMs'> & { retryable?: boolean }> {
    return new Promise((resolve) => {
      const agent = to.https ? agents[request.mode].https : agents[request.mode].http;
      const send = to.https ? https.request : http.request;
      let settled = false;
      const finish = (result: Omit<AttemptResult, 'durationMs'> & { retryable?: boolean }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const req = send({ ...to.options, method: 'POST', agent, headers: Object.fromEntries(request.headers) });
      const timer = setTimeout(() => req.destroy(new TimedOut()), Math.max(0, deadline - performance.now()));
      req.on('error', (err: NodeJS.ErrnoException) => {
        // A kept-alive socket the receiver had just closed: nothing reached it, so try a fresh one.
        const stale = req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
        finish({ error: describe(err, options.timeoutMs), retryable: stale });
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const retryAfter = typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : undefined;
        const done = () => finish({
          status: res.statusCode, responseBody: printable(Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT)), retryAfter,
        });
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          // Enough is kept; the rest is not worth waiting for (the connection is dropped instead).
          if (size >= RESPONSE_BODY_LIMIT) {
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', () => done());
        res.on('close', done);
      });
      req.end(request.body);
    });
  }

  return {
    async send(request) {
      const started = performance.now();
      const deadline = started + options.timeoutMs;
      const to = target(request.url, request.mode);
      if (to.problem !== undefined) return { error: `address not allowed: ${to.problem}`, durationMs: 0 };
      let result = await once(request, to, deadline);
      if (result.retryable && performance.now() < deadline) result = await once(request, to, deadline);
      const { retryable: _ignored, ...rest } = result;
      return { ...rest, durationMs: Math.round(performance.now() - started) };
    },
    close() {
      agents.test.destroy();
      agents.live.destroy();
    },
  };
}
