import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import apiReference from '@scalar/fastify-api-reference';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { buildOpenApi } from '../../services/contract/openapi.js';
import { projectPath } from '../../services/platform/paths.js';

// The API's description, for tools and for people, served without authentication: the OpenAPI
// document at /openapi.json and, at /docs, Scalar's API reference rendering it. Scalar's plugin
// serves the renderer's script from node_modules (/docs/js/scalar.js), not a CDN, and the page is
// told to fetch nothing from elsewhere (web fonts, telemetry, the AI agent, its hosted tools), so the reference works
// offline and tells no third party who reads it.

/** The project's licence, as package.json declares it (an SPDX identifier), for the document's `info`. */
function projectLicense(): string {
  return (JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { license: string }).license;
}

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';
export const FAVICON_PATH = '/favicon.svg';

// The reference's icon, inline so it needs no asset pipeline. Browsers also ask for /favicon.ico
// on their own; both answer it, so no page of this gateway logs a 404 for its icon.
const FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2f5bea"/>'
  + '<path d="M9 20.5c1.6 1.3 3.8 2 6.3 2 3.3 0 5.2-1.5 5.2-3.7 0-4.6-10.7-2.6-10.7-8.6C9.8 7.6 12.2 6 15.6 6c2.1 0 4 .5 5.4 1.5" '
  + 'fill="none" stroke="#fff" stroke-width="2.6" stroke-linecap="round"/></svg>';

/**
 * Where clients reach this deployment, the document's `servers`: PUBLIC_BASE_URL when the
 * deployment knows it, else the address this server listens on (a wildcard read as loopback, as
 * `npm start` does), else relative.
 */
export function deploymentUrl(publicBaseUrl: string | undefined, address: AddressInfo | string | null): string {
  if (publicBaseUrl) return publicBaseUrl;
  if (!address || typeof address === 'string') return '/';
  const wildcard: Record<string, string> = { '0.0.0.0': '127.0.0.1', '::': '::1' };
  const host = wildcard[address.address] ?? address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

// The reference's page runs only this server's script file and its own inline start-up script,
// allowed by its hash (computed from the page as sent, so a new Scalar version is followed). Scalar
// adds its stylesheets as <style> elements at run time, some without a nonce, so styles may be
// inline; no other origin is reachable but PUBLIC_BASE_URL's, which "Test request" calls.
const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g;

function scriptHashes(html: string): string[] {
  return [...html.matchAll(INLINE_SCRIPT)].map((m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`);
}

/** The policy of a docs page: its inline scripts by hash, and `apiOrigin` reachable besides this one. */
export function docsCsp(html: string, apiOrigin?: string): string {
  return [
    "default-src 'none'", `script-src 'self' ${scriptHashes(html).join(' ')}`.trim(), "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:", "font-src 'self'", `connect-src 'self'${apiOrigin ? ` ${apiOrigin}` : ''}`,
    "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
  ].join('; ');
}

/** On every response of /docs and /openapi.json; the page's policy is added to HTML. */
function secureDocs(publicBaseUrl: string | undefined) {
  const apiOrigin = publicBaseUrl ? new URL(publicBaseUrl).origin : undefined;
  let cached: { html: string; csp: string } | undefined;
  return async (_request: unknown, reply: FastifyReply, payload: unknown) => {
    reply.header('x-frame-options', 'DENY');
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('cross-origin-opener-policy', 'same-origin');
    if (typeof payload === 'string' && /^text\/html/.test(String(reply.getHeader('content-type')))) {
      if (cached?.html !== payload) cached = { html: payload, csp: docsCsp(payload, apiOrigin) };
      reply.header('content-security-policy', cached.csp);
    }
    return payload;
  };
}

/** /openapi.json and /docs, for the root of the gateway. */
export function apiDocs(publicBaseUrl: string | undefined) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('onSend', secureDocs(publicBaseUrl));
    // Built once the server listens (the port may be chosen then), and again only if the URL moves.
    let built: { url: string; json: string } | undefined;
    app.get(OPENAPI_PATH, async (_request, reply) => {
      const url = deploymentUrl(publicBaseUrl, app.server.address());
      if (built?.url !== url) built = { url, json: JSON.stringify(buildOpenApi(url, projectLicense())) };
      return reply.type('application/json').send(built.json);
    });
    for (const path of [FAVICON_PATH, '/favicon.ico']) {
      app.get(path, async (_request, reply) => reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON));
    }
    await app.register(apiReference, {
      routePrefix: DOCS_PATH,
      logLevel: 'warn',
      configuration: {
        url: OPENAPI_PATH,
        pageTitle: 'Payment orchestration API reference',
        favicon: FAVICON_PATH,
        withDefaultFonts: false,
        telemetry: false,
        agent: { disabled: true },
        showDeveloperTools: 'never',
      },
    });
  };
}
