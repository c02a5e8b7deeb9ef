import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { projectPath } from '../../services/platform/paths.js';

// The merchant dashboard's pages: the files vite builds from dashboard/ into dist/dashboard
// (scripts/build/dashboard.mjs, run by `npm run build` and `npm start`), served under /dashboard by
// @fastify/static. Every page path answers index.html and the browser-side router shows the page;
// /dashboard/api/* is the dashboard's own API (its routes are registered elsewhere) and never falls
// back to the page. Nothing comes from another origin, and the policy below lets nothing else run.

export const DASHBOARD_PATH = '/dashboard';
const API_PREFIX = 'api/';
const ASSETS_PREFIX = 'assets/';

/**
 * Scripts and styles only as files of this origin (vite inlines none), API calls to this origin,
 * no framing, no plugins, forms posting only here.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self'", "font-src 'self'",
  "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': DASHBOARD_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

/** Asset names carry their content's hash: a new build gives new names, so they never change. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The page is asked again every time (it is small), so a new build is picked up at once. */
const REVALIDATE = 'no-cache';

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Dashboard not built</title></head>
<body><main><h1>The dashboard is not built</h1>
<p>This server has no dashboard files (dist/dashboard). Run <code>npm run build</code>, or
<code>npm start</code>, which builds it, and reload this page.</p></main></body></html>
`;

function notBuilt(reply: FastifyReply): FastifyReply {
  return reply.code(503).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT);
}

/** The file a path under /dashboard/ names, or undefined for a page path (no extension, not an asset). */
function assetOf(rest: string): string | undefined {
  if (rest.startsWith(ASSETS_PREFIX)) return rest;
  const last = rest.split('/').at(-1) ?? '';
  return last.includes('.') ? rest : undefined;
}

/** /dashboard and everything under it but the API. `root` defaults to dist/dashboard. */
export function dashboardAssets(root = projectPath('dist', 'dashboard')) {
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(fastifyStatic, {
      root,
      serve: false, // one route below decides between a file and the page
      dotfiles: 'ignore',
      index: false,
      cacheControl: false,
      etag: true,
      lastModified: true,
    });
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.headers(SECURITY_HEADERS);
      return payload;
    });

    const page = (_request: FastifyRequest, reply: FastifyReply) => {
      // Looked up per request, so a build made after the server started is served without a restart.
      if (!existsSync(join(root, 'index.html'))) return notBuilt(reply);
      return reply.header('cache-control', REVALIDATE).sendFile('index.html');
    };
    app.get(DASHBOARD_PATH, page);
    app.get(`${DASHBOARD_PATH}/*`, (request, reply) => {
      const rest = (request.params as { '*': string })['*'];
      if (rest.startsWith(API_PREFIX)) return reply.callNotFound();
      const file = assetOf(rest);
      if (file === undefined) return page(request, reply);
      if (!existsSync(join(root, 'index.html'))) return notBuilt(reply);
      // A missing file is the ordinary 404 (and not cached); nothing outside the folder is served.
      const path = resolve(root, file);
      if (!path.startsWith(root + sep) || !existsSync(path)) return reply.callNotFound();
      reply.header('cache-control', file.startsWith(ASSETS_PREFIX) ? IMMUTABLE : REVALIDATE);
      return reply.sendFile(file);
    });
  };
}
