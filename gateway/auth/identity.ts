import type { FastifyRequest } from 'fastify';
import type { Identity } from '../store/index.js';

// The identity of an authenticated /v1 request. It is kept beside the request rather than on it, so
// the request type claims no identity where none exists (the sandbox page, /manage/v1, a 404 outside
// /v1): code that needs one asks for it here, and only the /v1 scope's hooks and handlers do.
const identities = new WeakMap<FastifyRequest, Identity>();

export function rememberIdentity(request: FastifyRequest, identity: Identity): void {
  identities.set(request, identity);
}

/** The identity of a request authentication admitted, if any (for hooks that also see refused ones). */
export function admittedIdentity(request: FastifyRequest): Identity | undefined {
  return identities.get(request);
}

/**
 * The identity authentication found. Inside the /v1 scope authentication is the first of its hooks
 * and refuses the request when it finds none, so a missing one is a wiring mistake, not a client's.
 */
export function identityOf(request: FastifyRequest): Identity {
  const identity = identities.get(request);
  if (!identity) throw new Error(`no identity for ${request.method} ${request.url}: asked outside the /v1 scope`);
  return identity;
}
