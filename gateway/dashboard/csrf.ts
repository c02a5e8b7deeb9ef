import type { FastifyRequest } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import { csrfMatches } from './tokens.js';

// The CSRF check both kinds of session share (members' in guards.ts, the operator's in
// operator-session.ts); its own file so neither imports the other.

export const CSRF_HEADER = 'x-csrf-token';
export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** 403 unless a state-changing request carries the CSRF token of the session it is made with. */
export function refuseWithoutCsrfToken(request: FastifyRequest, sessionToken: string): void {
  if (SAFE_METHODS.has(request.method)) return;
  if (!csrfMatches(sessionToken, request.headers[CSRF_HEADER])) {
    throw new DomainError(
      'invalid_csrf_token',
      `Send the session's csrf_token (GET /dashboard/api/session) in the ${CSRF_HEADER} header.`,
    );
  }
}
