import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../services/contract/index.js';

// What a string of a request may hold, wherever it comes from (body, query, path): well-formed
// Unicode (no lone surrogate, which Postgres and NATS would refuse or rewrite) and no NUL (which
// Postgres text cannot store). A refused value is named by its field, never echoed. Invalid UTF-8
// never becomes text silently: the body parser (json-body.ts) and the query check below refuse it
// instead of letting it turn into U+FFFD.

/** Why a string is refused, or undefined. */
export function badText(s: string): string | undefined {
  if (s.includes('\0')) return 'contains a NUL character';
  if (/\p{Cs}/u.test(s)) return 'contains a lone UTF-16 surrogate (not a Unicode character)';
  return undefined;
}

function refuse(param: string | undefined, why: string): never {
  throw new DomainError('validation_error', `${param || 'request'} ${why}`, { param: param || undefined });
}

/**
 * Refuses the first bad string of a parsed JSON value by its path. A bad key is reported as the
 * path of its object. `__proto__` and `constructor.prototype` keys are refused as Fastify's own
 * parser does: nothing downstream should have to think about them.
 */
export function refuseBadText(value: unknown, path: string[] = []): void {
  if (typeof value === 'string') {
    const why = badText(value);
    if (why) refuse(path.join('.'), why);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => refuseBadText(v, [...path, String(i)]));
    return;
  }
  if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '__proto__' || (key === 'constructor' && inner && typeof inner === 'object' && 'prototype' in inner)) {
        throw new DomainError('invalid_json', 'The request body holds a forbidden key (__proto__ or constructor.prototype).');
      }
      const why = badText(key);
      if (why) refuse(path.join('.'), `has a key that ${why}`);
      refuseBadText(inner, [...path, key]);
    }
  }
}

function decodeQueryPart(part: string): string | undefined {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * Fastify's query parser keeps a percent-escape that is not UTF-8 (`%FF`) as its raw text; the
 * raw query is checked here so such a value is refused, not stored as "%FF".
 */
function refuseBadQuery(url: string): void {
  const at = url.indexOf('?');
  if (at < 0) return;
  for (const pair of url.slice(at + 1).split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeQueryPart(eq < 0 ? pair : pair.slice(0, eq));
    if (name === undefined) refuse(undefined, 'has a query parameter name that is not valid UTF-8 percent-encoding');
    const why = badText(name);
    if (why) refuse(undefined, `has a query parameter name that ${why}`);
    if (eq >= 0 && decodeQueryPart(pair.slice(eq + 1)) === undefined) refuse(name, 'is not valid UTF-8 percent-encoding');
  }
}

const PLAIN_INTEGER = /^-?\d+$/;

/**
 * Query numbers are plain decimal integers. The query validator coerces strings to numbers the
 * way JavaScript does, which would read `1e2`, `0x10` or ` 5` as numbers; they are refused first.
 */
function refuseLooseIntegers(request: FastifyRequest): void {
  const schema = request.routeOptions.schema?.querystring as { properties?: Record<string, { type?: unknown }> } | undefined;
  const query = request.query as Record<string, unknown> | undefined;
  if (!schema?.properties || !query) return;
  for (const [name, s] of Object.entries(schema.properties)) {
    const v = query[name];
    if (s.type !== 'integer' || v === undefined) continue;
    if (typeof v !== 'string' || !PLAIN_INTEGER.test(v)) refuse(name, 'must be a plain decimal integer');
  }
}

/** Path and query text rules for every route; body text is checked as it is parsed. */
export function installTextRules(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    for (const [name, v] of Object.entries((request.params ?? {}) as Record<string, unknown>)) {
      const why = typeof v === 'string' ? badText(v) : undefined;
      if (why) refuse(name, why);
    }
    refuseBadQuery(request.url);
    for (const [name, v] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
      for (const item of Array.isArray(v) ? v : [v]) {
        const why = typeof item === 'string' ? badText(item) : undefined;
        if (why) refuse(name, why);
      }
    }
    refuseLooseIntegers(request);
  });
}
