// A stand-in's answers made unreadable on the way back: a loopback proxy in front of any provider's
// stand-in (the account's api_base_url points at it) that passes every request on, so the provider
// acts as it would, and, when armed, answers the next request of a given operation with garbage
// made from (or instead of) the stand-in's real answer, once. What a connector then decides shows
// whether an answer it cannot read ever decides an outcome.
import type { IncomingHttpHeaders } from 'node:http';
import { serveLoopback, type StandInServer } from './stand-in-server.js';

/** What the client gets in place of the stand-in's answer body (and its content type). */
export interface Garbage {
  name: string;
  contentType: string;
  body(real: string): string;
}

const json = (name: string, body: (real: Record<string, unknown>) => Record<string, unknown>): Garbage => ({
  name, contentType: 'application/json', body: (real) => JSON.stringify(body(JSON.parse(real) as Record<string, unknown>)),
});

/** Fields by which the connectors recognise what a provider made and how it stands. */
const DECIDING = ['id', 'status', 'pspReference', 'resultCode', 'action_id', 'approved'];

/** The unreadable answers of the fault list: empty, `{}`, truncated, HTML, fields missing, a status nobody documents. */
export const GARBAGE: readonly Garbage[] = [
  { name: 'empty body', contentType: 'application/json', body: () => '' },
  json('empty object', () => ({})),
  { name: 'truncated JSON', contentType: 'application/json', body: (real) => real.slice(0, Math.max(1, Math.floor(real.length / 2))) },
  { name: 'HTML page', contentType: 'text/html', body: () => '<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>' },
  json('deciding fields missing', (real) => Object.fromEntries(Object.entries(real).filter(([k]) => !DECIDING.includes(k)))),
  json('unknown status', (real) => ({ ...real, ...('status' in real ? { status: 'reticulating' } : {}), ...('resultCode' in real ? { resultCode: 'Reticulating' } : {}) })),
];

/** Which request to garble: its method and a pattern of its path (query excluded). */
export interface Operation {
  method: string;
  path: RegExp;
}

export interface GarblingProxy extends StandInServer {
  /** The next `times` requests matching `op` reach the stand-in; their answers come back as `garbage`. */
  garbleNext(op: Operation, garbage: Garbage, times?: number): void;
  /** How many answers were garbled so far. */
  garbled: number;
  /** Whether an armed garbling has not met its request yet. */
  armed(): boolean;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

function forwardHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export async function startGarblingProxy(target: string): Promise<GarblingProxy> {
  let pending: { op: Operation; garbage: Garbage; times: number } | undefined;
  const server = await serveLoopback(async (req, res, body) => {
    const url = new URL(req.url ?? '/', target);
    const method = req.method ?? 'GET';
    const real = await fetch(`${target}${req.url ?? '/'}`, {
      method, headers: forwardHeaders(req.headers), body: method === 'GET' || method === 'HEAD' ? undefined : body,
    });
    const text = await real.text();
    const headers: Record<string, string> = {};
    real.headers.forEach((v, k) => { if (!HOP_BY_HOP.has(k) && k !== 'content-encoding') headers[k] = v; });
    const armed = pending;
    if (armed && armed.op.method === method && armed.op.path.test(url.pathname) && real.ok) {
      if (--armed.times === 0) pending = undefined;
      proxy.garbled++;
      res.writeHead(real.status, { ...headers, 'content-type': armed.garbage.contentType }).end(armed.garbage.body(text));
      return;
    }
    res.writeHead(real.status, headers).end(text);
  });
  const proxy: GarblingProxy = {
    baseUrl: server.baseUrl,
    close: server.close,
    garbled: 0,
    garbleNext(op, garbage, times = 1) { pending = { op, garbage, times }; },
    armed: () => pending !== undefined,
  };
  return proxy;
}
