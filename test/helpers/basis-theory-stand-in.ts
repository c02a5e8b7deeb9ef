// Basis Theory in a local stand-in, written from its public reference (the API reference's
// "Applications: get by key" and "Ephemeral proxy", and the detokenization expressions guide): it
// holds card tokens, answers GET /applications/key for its keys, and takes POST /proxy with
// BT-API-KEY and BT-PROXY-URL, evaluates the token expressions in the body
// (`{{ token: <id> | json: '$.data.<field>' }}`, with `pad_left`), calls the destination over
// loopback with the other headers, and answers the destination's response as it came. Its own
// errors come wrapped in `proxy_error`. It is the only part of a test run that ever sees the card;
// `forwarded` is its own record of what it sent.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveStandIn } from './stand-in-server.js';

/** A card token's data as Basis Theory holds it (`type: card`). */
export interface CardTokenData {
  number: string;
  expiration_month: number;
  expiration_year: number;
  cvc: string;
}

export interface BasisTheoryForward {
  apiKey: string;
  url: string;
  sentBody: string;
  sentHeaders: Record<string, string>;
  status: number;
}

export interface BasisTheoryStandIn {
  baseUrl: string;
  tokens: Map<string, CardTokenData>;
  /** Every request as received (what our stack sent: expressions, never card data). */
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: string }>;
  forwarded: BasisTheoryForward[];
  /** Answers still to lose: the destination is called and answers, then the proxy answers a 502 of its own. */
  lostAnswers: { answers: number };
  close(): Promise<void>;
}

type Answer = { status: number; body: string; headers?: Record<string, string> };

const problem = (status: number, title: string, detail?: string): Answer => ({
  status, body: JSON.stringify({ proxy_error: { title, status, ...(detail && { detail }) } }),
});

// `{{ token: <id> | json: '$.data.<field>' [| pad_left: <n>, '<c>'] }}`: the forms our forwarder writes.
const EXPRESSION = /\{\{\s*token:\s*([\w-]+)\s*\|\s*json:\s*'\$\.data\.(\w+)'\s*(?:\|\s*pad_left:\s*(\d+),\s*'(.)'\s*)?\}\}/g;

/** The body with each expression replaced by the token's value, or the id of a token it does not hold. */
function detokenize(body: string, tokens: Map<string, CardTokenData>): { body: string } | { missing: string } {
  let missing: string | undefined;
  const out = body.replace(EXPRESSION, (_all, id: string, field: string, width?: string, pad?: string) => {
    const data = tokens.get(id) as unknown as Record<string, unknown> | undefined;
    if (!data) {
      missing ??= id;
      return '';
    }
    const value = String(data[field] ?? '');
    return width ? value.padStart(Number(width), pad) : value;
  });
  return missing === undefined ? { body: out } : { missing };
}

// Not forwarded to the destination: the proxy's own headers and the hop's.
const NOT_FORWARDED = /^(bt-|host$|content-length$|connection$)/i;

export async function startBasisTheoryStandIn(opts: { apiKeys: string[]; permissions?: string[] }): Promise<BasisTheoryStandIn> {
  const tokens = new Map<string, CardTokenData>();
  const requests: BasisTheoryStandIn['requests'] = [];
  const forwarded: BasisTheoryForward[] = [];
  const permissions = opts.permissions ?? ['token:use', 'token:create'];
  const lostAnswers = { answers: 0 };

  async function proxy(apiKey: string, headers: IncomingMessage['headers'], body: string): Promise<Answer> {
    if (!permissions.includes('token:use')) return problem(403, 'Forbidden', 'The application lacks the token:use permission');
    const url = headers['bt-proxy-url'];
    if (typeof url !== 'string' || url === '') return problem(400, 'BT-PROXY-URL is required');
    // The real proxy requires https; this one is allowed to reach loopback stand-ins only.
    if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(url)) return problem(400, 'BT-PROXY-URL is not an allowed destination');
    const filled = detokenize(body, tokens);
    if ('missing' in filled) return problem(400, 'Token not found', `No token ${filled.missing}`);
    const sentHeaders = Object.fromEntries(Object.entries(headers)
      .filter(([name, v]) => !NOT_FORWARDED.test(name) && typeof v === 'string') as Array<[string, string]>);
    const res = await fetch(url, { method: 'POST', headers: sentHeaders, body: filled.body });
    const text = await res.text();
    forwarded.push({ apiKey, url, sentBody: filled.body, sentHeaders, status: res.status });
    if (lostAnswers.answers > 0) {
      lostAnswers.answers--;
      return problem(502, 'Bad Gateway', 'The destination\'s answer was lost');
    }
    return { status: res.status, body: text, headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } };
  }

  async function handle(req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://stand-in').pathname;
    requests.push({ method: req.method ?? '', path, headers: req.headers, body });
    const send = (a: Answer) => {
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(a.body);
    };
    const apiKey = req.headers['bt-api-key'];
    if (typeof apiKey !== 'string' || !opts.apiKeys.includes(apiKey)) {
      return send(path === '/proxy' ? problem(401, 'Unauthorized') : { status: 401, body: JSON.stringify({ title: 'Unauthorized', status: 401 }) });
    }
    if (req.method === 'GET' && path === '/applications/key') {
      return send({ status: 200, body: JSON.stringify({ id: 'app_standin', tenant_id: 'tenant_standin', name: 'Payments', type: 'private', permissions }) });
    }
    if (req.method === 'POST' && path === '/proxy') return send(await proxy(apiKey, req.headers, body));
    send({ status: 404, body: JSON.stringify({ title: 'Not Found', status: 404 }) });
  }

  const server = await serveStandIn(handle, (err) => ({ proxy_error: { title: 'Internal Server Error', status: 500, detail: String(err) } }));
  return { baseUrl: server.baseUrl, tokens, requests, forwarded, lostAnswers, close: server.close };
}
