import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import { rememberSession, type DashboardDeps } from './context.js';
import { requireOperatorSession } from './operator-session.js';
import { requirePermission } from './roles.js';
import { SESSION_COOKIE, SESSION_IDLE_MS } from './session-cookie.js';
import { refuseWithoutCsrfToken, SAFE_METHODS } from './csrf.js';
import { isTokenShaped, tokenHash } from './tokens.js';

// The dashboard scope's onRequest hook, in order of refusal:
//   1. a state-changing call from another site's page (Origin) is refused, signed in or not;
//   2. a route that needs a session gets it from the svc_session cookie, or 401;
//   3. a state-changing call carries the session's x-csrf-token, or 403 invalid_csrf_token;
//   4. the member's role grants the route's permission, or 403 forbidden.
// Public routes (register, sign-in, password reset, accepting an invitation) stop after 1; the
// operator console's routes check the operator's own session instead (operator-session.ts).


/**
 * Browsers send Origin on every cross-origin POST; one that names neither this host nor
 * PUBLIC_BASE_URL comes from another site's page. (Public routes have no session to bind a CSRF
 * token to; this keeps another site from signing a browser in to its own account.)
 */
export function refuseForeignOrigin(request: FastifyRequest, publicBaseUrl: string | undefined): void {
  const origin = request.headers.origin;
  if (origin === undefined || SAFE_METHODS.has(request.method)) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  const ours = [request.headers.host, publicBaseUrl && new URL(publicBaseUrl).host].filter(Boolean);
  if (host === undefined || !ours.includes(host)) {
    throw new DomainError('invalid_csrf_token', 'The request came from another site\'s page.');
  }
}

const signInFirst = () => new DomainError('unauthorized', 'Sign in to the dashboard.');

export function installGuards(scope: FastifyInstance, deps: DashboardDeps): void {
  scope.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.dashboard;
    refuseForeignOrigin(request, deps.config.publicBaseUrl);
    // An unknown URL under the scope has no access declared: the 404 answers it, not a 401.
    if (access === undefined || 'public' in access) return;
    if ('operator' in access) {
      await requireOperatorSession(request, deps);
      return;
    }
    const token = request.cookies[SESSION_COOKIE];
    if (!isTokenShaped(token)) throw signInFirst();
    const session = await deps.store.touchSession(tokenHash(token), deps.clock.now(), SESSION_IDLE_MS);
    if (!session) throw signInFirst();
    refuseWithoutCsrfToken(request, token);
    requirePermission(session.role, access.permission);
    rememberSession(request, session, token);
  });
}
