import type { AddressInfo } from 'node:net';
import apiReference from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';
import { buildOpenApi } from '../../services/shared/contract/openapi.js';

// The API's description, for tools and for people, served without authentication: the OpenAPI
// document at /openapi.json and, at /docs, Scalar's API reference rendering it. Scalar's plugin
// serves the renderer's script from node_modules (/docs/js/scalar.js), not a CDN, and the page is
// told to fetch nothing from elsewhere (web fonts, telemetry, the AI agent, its hosted tools), so the reference works
// offline and tells no third party who reads it.

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

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

/** /openapi.json and /docs, for the root of the gateway. */
export function apiDocs(publicBaseUrl: string | undefined) {
  return async (app: FastifyInstance): Promise<void> => {
    // Built once the server listens (the port may be chosen then), and again only if the URL moves.
    let built: { url: string; json: string } | undefined;
    app.get(OPENAPI_PATH, async (_request, reply) => {
      const url = deploymentUrl(publicBaseUrl, app.server.address());
      if (built?.url !== url) built = { url, json: JSON.stringify(buildOpenApi(url)) };
      return reply.type('application/json').send(built.json);
    });
    await app.register(apiReference, {
      routePrefix: DOCS_PATH,
      logLevel: 'warn',
      configuration: {
        url: OPENAPI_PATH,
        pageTitle: 'Payment orchestration API reference',
        withDefaultFonts: false,
        telemetry: false,
        agent: { disabled: true },
        mcp: { disabled: true },
        showDeveloperTools: 'never',
      },
    });
  };
}
