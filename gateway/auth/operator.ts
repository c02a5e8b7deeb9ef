import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../services/contract/index.js';

const digest = (v: string) => createHash('sha256').update(v).digest();

/** The management API takes the deployment's operator token as a bearer token. */
export function requireOperator(token: string, request: FastifyRequest): void {
  const match = /^Bearer +(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!match) throw new DomainError('unauthorized', 'Provide the operator token as "Authorization: Bearer <TOKEN>".');
  // Equal-length digests make the comparison constant-time whatever was sent.
  if (!timingSafeEqual(digest(match[1]), digest(token))) {
    throw new DomainError('invalid_api_key', 'The operator token is not valid.');
  }
}

/** The first onRequest hook of the /manage/v1 scope. */
export function installOperatorAuthentication(scope: FastifyInstance, token: string): void {
  scope.addHook('onRequest', async (request) => requireOperator(token, request));
}
