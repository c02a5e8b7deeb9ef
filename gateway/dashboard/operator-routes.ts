import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import { ACTOR } from '../management/context.js';
import { throttled } from './account-routes.js';
import type { DashboardDeps } from './context.js';
import {
  clearOperatorCookie, OPERATOR_COOKIE, OPERATOR_SESSION_IDLE_MS, OPERATOR_SESSION_LIFETIME_MS, OPERATOR_THROTTLE_KEY,
  startOperatorSession,
} from './operator-session.js';
import { OperatorSignInBody } from './schemas.js';
import { clientIp } from './session-cookie.js';
import { csrfTokenOf, tokenHash } from './tokens.js';

// Operators signing in to and out of the console (operator-session.ts for the cookie):
//   POST /dashboard/api/operator/sign-in    {token}: the deployment's OPERATOR_TOKEN; wrong tokens are
//                                           slowed per client address as member sign-ins are, the
//                                           right one always works; audited
//   GET  /dashboard/api/operator/session    {csrf_token, idle_timeout_seconds}
//   POST /dashboard/api/operator/sign-out

const digest = (v: string) => createHash('sha256').update(v).digest();

function operatorView(token: string) {
  return {
    object: 'operator_session', csrf_token: csrfTokenOf(token),
    expires_in_seconds: OPERATOR_SESSION_LIFETIME_MS / 1000, idle_timeout_seconds: OPERATOR_SESSION_IDLE_MS / 1000,
  };
}

export function operatorRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const { store, clock } = deps;
  const operator = { config: { dashboard: { operator: true as const } } };

  scope.post('/operator/sign-in', {
    config: { dashboard: { public: true } }, schema: { body: OperatorSignInBody },
  }, async (request, reply) => {
    if (!deps.operatorToken) throw new DomainError('resource_not_found', 'The operator console is off: OPERATOR_TOKEN is not set.');
    const ip = clientIp(request, deps);
    // The right token always signs in: it is long and random (OPERATOR_TOKEN, 24+ characters), so
    // guessing it is hopeless, and throttling it would let wrong guesses from an address every
    // operator shares (a proxy outside TRUSTED_PROXIES) lock them all out. Wrong tokens are slowed
    // per address as member sign-ins are (throttle.ts); a refused one is 429, never a verdict.
    // Equal-length digests make the comparison constant-time whatever was sent (as /manage/v1 does).
    if (!timingSafeEqual(digest((request.body as { token: string }).token), digest(deps.operatorToken))) {
      const decision = await store.takeSignInAttempt(OPERATOR_THROTTLE_KEY, ip, clock.now());
      if (!decision.allowed) throw throttled(decision.retryAfterSeconds);
      throw new DomainError('invalid_credentials', 'The operator token is not right.');
    }
    const token = await startOperatorSession(deps, request, reply, ip);
    await store.recordAudit(ACTOR, 'operator.signed_in', clock.now(), {});
    return operatorView(token);
  });

  scope.get('/operator/session', operator, async (request) => operatorView(request.cookies[OPERATOR_COOKIE]!));

  scope.post('/operator/sign-out', operator, async (request, reply) => {
    await store.endOperatorSession(tokenHash(request.cookies[OPERATOR_COOKIE]!));
    clearOperatorCookie(request, reply, deps);
    return { signed_out: 1 };
  });
}
