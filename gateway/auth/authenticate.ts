import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../services/shared/index.js';
import type { GatewayStore, Identity } from '../store/index.js';
import { rememberIdentity } from './identity.js';

// The scheme name is case-insensitive (RFC 7235); the key itself is not.
const BEARER = /^Bearer +(\S+)$/i;

/** The identity of a request: 401 unauthorized without a bearer header, invalid_api_key for a bad key. */
export async function authenticate(store: GatewayStore, request: FastifyRequest): Promise<Identity> {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? BEARER.exec(header) : null;
  if (!match) {
    throw new DomainError('unauthorized', 'Provide your API key as "Authorization: Bearer <API_KEY>".');
  }
  const identity = /^svc_sk_(test|live)_[0-9A-Za-z]+$/.test(match[1]) ? await store.identify(match[1]) : undefined;
  if (!identity) throw new DomainError('invalid_api_key', 'The API key is unknown or has been revoked.');
  return identity;
}

/** The first onRequest hook of the /v1 scope: every later hook and handler there has an identity. */
export function installAuthentication(api: FastifyInstance, store: GatewayStore): void {
  api.addHook('onRequest', async (request) => {
    rememberIdentity(request, await authenticate(store, request));
  });
}

/** The scope every service call carries. */
export function scopeOf(identity: Identity) {
  return { merchantId: identity.merchant.id, projectId: identity.project.id, mode: identity.mode };
}
