import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import type { DashboardDeps } from './context.js';
import { refuseWithoutCsrfToken } from './csrf.js';
import { cameOverTls } from './session-cookie.js';
import { isTokenShaped, newToken, tokenHash } from './tokens.js';

// The operator console's session: the deployment's operators sign in with OPERATOR_TOKEN and get
// `svc_operator`, a cookie of its own, HttpOnly, SameSite=Strict and scoped to the console's API
// (Path=/dashboard/api/operator), so it is sent nowhere else; a merchant's svc_session is never
// accepted there, nor this one anywhere else. CSRF as for members: the token derived from the
// session (tokens.ts) in x-csrf-token on every state-changing call. Shorter lived than a member's
// session: the token opens every merchant.

export const OPERATOR_COOKIE = 'svc_operator';
export const OPERATOR_COOKIE_PATH = '/dashboard/api/operator';
export const OPERATOR_SESSION_LIFETIME_MS = 8 * 3_600_000;
export const OPERATOR_SESSION_IDLE_MS = 30 * 60_000;
/** The sign-in throttle's key for the operator token (emails always hold an "@"). */
export const OPERATOR_THROTTLE_KEY = '(operator)';

const signInFirst = () => new DomainError('unauthorized', 'Sign in to the operator console with the operator token.');

function cookieOptions(request: FastifyRequest, deps: DashboardDeps, maxAgeSeconds: number) {
  return {
    httpOnly: true, sameSite: 'strict' as const, path: OPERATOR_COOKIE_PATH, secure: cameOverTls(request, deps), maxAge: maxAgeSeconds,
  };
}

export async function startOperatorSession(
  deps: DashboardDeps, request: FastifyRequest, reply: FastifyReply, clientAddress: string,
): Promise<string> {
  const at = deps.clock.now();
  const token = newToken();
  await deps.store.createOperatorSession(tokenHash(token), at, new Date(at.getTime() + OPERATOR_SESSION_LIFETIME_MS), clientAddress);
  reply.setCookie(OPERATOR_COOKIE, token, cookieOptions(request, deps, OPERATOR_SESSION_LIFETIME_MS / 1000));
  return token;
}

export function clearOperatorCookie(request: FastifyRequest, reply: FastifyReply, deps: DashboardDeps): void {
  reply.clearCookie(OPERATOR_COOKIE, cookieOptions(request, deps, 0));
}

/** The guard of an operator route: a live operator session, and its CSRF token on a change. */
export async function requireOperatorSession(request: FastifyRequest, deps: DashboardDeps): Promise<string> {
  const token = request.cookies[OPERATOR_COOKIE];
  if (!deps.operatorToken || !isTokenShaped(token)) throw signInFirst();
  if (!(await deps.store.touchOperatorSession(tokenHash(token), deps.clock.now(), OPERATOR_SESSION_IDLE_MS))) throw signInFirst();
  refuseWithoutCsrfToken(request, token);
  return token;
}
