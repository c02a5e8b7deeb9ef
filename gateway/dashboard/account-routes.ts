import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import type { Mode } from '../store/index.js';
import { sessionOf, sessionTokenOf, type DashboardDeps } from './context.js';
import { refuseIfHashingFull } from './hash-gate.js';
import { spendDecoyHash, verifyPassword } from './passwords.js';
import { RetryLater } from './retry-later.js';
import { ModeBody, normalEmail, SignInBody } from './schemas.js';
import { clearSessionCookie, clientIp, SESSION_IDLE_MS, startSession } from './session-cookie.js';
import { sessionView } from './session-view.js';
import { tokenHash } from './tokens.js';

// Signing in and out, the session and its mode (registration: registration-routes.ts):
//   POST /dashboard/api/sign-in               {email, password}                 signed in; 429 when throttled
// Both are throttled per client address (address-throttle.ts) and by the hashing bound (hash-gate.ts);
// sign-in also per email and address, slowing failures down (throttle.ts).
//   POST /dashboard/api/sign-out              this browser
//   POST /dashboard/api/sign-out-everywhere   every session of the user
//   GET  /dashboard/api/session               who, which merchant/project/mode, csrf_token
//   POST /dashboard/api/mode                  {mode}

const invalidCredentials = () => new DomainError('invalid_credentials', 'The email or the password is not right.');

/** 429 with Retry-After (retry-later.ts): the pair must wait after its last failure (throttle.ts). */
export function throttled(retryAfterSeconds: number): RetryLater {
  return new RetryLater(`Too many failed sign-ins; try again in ${retryAfterSeconds} seconds.`, retryAfterSeconds);
}

/** Signs the user in to the merchant and answers what GET /session would. */
export async function signIn(
  deps: DashboardDeps, request: FastifyRequest, reply: FastifyReply, userId: string, merchantId: string,
) {
  const token = await startSession(deps, request, reply, userId, merchantId);
  const session = await deps.store.touchSession(tokenHash(token), deps.clock.now(), SESSION_IDLE_MS);
  return sessionView(deps.store, session!, token);
}

async function checkedPassword(deps: DashboardDeps, email: string, password: string, ip: string) {
  // Refused before anything is recorded when the hashing bound is reached already (hash-gate.ts).
  refuseIfHashingFull();
  const at = deps.clock.now();
  const decision = await deps.store.takeSignInAttempt(email, ip, at);
  if (!decision.allowed) return decision;
  try {
    const user = await deps.store.userByEmail(email);
    if (!user) {
      await spendDecoyHash(password);
      throw invalidCredentials();
    }
    if (!(await verifyPassword(password, user.password_hash))) throw invalidCredentials();
    return { allowed: true as const, user };
  } catch (err) {
    // A password never checked is no failure: the attempt goes back (the client retries in a second).
    if (err instanceof RetryLater) await deps.store.giveBackSignInAttempt(email, ip, at);
    throw err;
  }
}

export function accountRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const { store } = deps;

  scope.post('/sign-in', { config: { dashboard: { public: true }, throttle: 'sign-in' }, schema: { body: SignInBody } }, async (request, reply) => {
    const body = request.body as { email: string; password: string };
    const email = normalEmail(body.email);
    const ip = clientIp(request, deps);
    const checked = await checkedPassword(deps, email, body.password, ip);
    if (!checked.allowed) throw throttled(checked.retryAfterSeconds);
    const membership = await store.defaultMembership(checked.user.id);
    // A user whose every membership was removed has nothing to sign in to.
    if (!membership) throw new DomainError('forbidden', 'This account is not a member of any merchant.');
    await store.clearSignInAttempts(email, ip);
    return signIn(deps, request, reply, checked.user.id, membership.merchantId);
  });

  scope.post('/sign-out', { config: { dashboard: { permission: 'view' } } }, async (request, reply) => {
    await store.deleteSession(sessionOf(request).id);
    clearSessionCookie(request, reply, deps);
    return { signed_out: 1 };
  });

  scope.post('/sign-out-everywhere', { config: { dashboard: { permission: 'view' } } }, async (request, reply) => {
    const signedOut = await store.deleteUserSessions(sessionOf(request).user.id);
    clearSessionCookie(request, reply, deps);
    return { signed_out: signedOut };
  });

  scope.get('/session', { config: { dashboard: { permission: 'view' } } }, async (request) =>
    sessionView(store, sessionOf(request), sessionTokenOf(request)!));

  // Live may be looked at before verification (the page shows the checklist); what live refuses
  // before it, creating a live key, is refused by that call.
  scope.post('/mode', { config: { dashboard: { permission: 'view' } }, schema: { body: ModeBody } }, async (request) => {
    const session = sessionOf(request);
    const { mode } = request.body as { mode: Mode };
    await store.setSessionMode(session.id, mode);
    return sessionView(store, { ...session, mode }, sessionTokenOf(request)!);
  });
}
