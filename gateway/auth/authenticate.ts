import type { FastifyRequest } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import type { Identity } from '../store/index.js';

// The scheme name is case-insensitive (RFC 7235); the key itself is not.
const BEARER = /^Bearer +(\S+)$/i;

/** Admits a key's secret (edge/admitter.ts, on the floor above, is the one the gateway passes). */
export interface KeyAdmitter<A> {
  admit(secret: string, defaultLimit: number, at: Date): Promise<A | undefined>;
}

/**
 * The identity of a request with the request counted against its key's rate limit: 401
 * unauthorized without a bearer header, invalid_api_key for a bad key (which counts nothing).
 */
export async function authenticate<A>(
  admitter: KeyAdmitter<A>, request: FastifyRequest, defaultLimit: number, at: Date,
): Promise<A> {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? BEARER.exec(header) : null;
  if (!match) {
    throw new DomainError('unauthorized', 'Provide your API key as "Authorization: Bearer <API_KEY>".');
  }
  const admission = /^svc_sk_(test|live)_[0-9A-Za-z]+$/.test(match[1])
    ? await admitter.admit(match[1], defaultLimit, at)
    : undefined;
  if (!admission) throw new DomainError('invalid_api_key', 'The API key is unknown or has been revoked.');
  return admission;
}

/** The scope every service call carries. */
export function scopeOf(identity: Identity) {
  return { merchantId: identity.merchant.id, projectId: identity.project.id, mode: identity.mode };
}
