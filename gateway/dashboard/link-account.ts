import type { FastifyRequest } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import { throttled } from './account-routes.js';
import type { DashboardDeps } from './context.js';
import { refuseIfHashingFull } from './hash-gate.js';
import { checkPasswordRules, hashPassword, verifyPassword } from './passwords.js';
import { clientIp } from './session-cookie.js';

/**
 * Who accepts a link that adds a membership (an invitation, an owner sign-in link) as `email`: the
 * account that email has, by its password, or a new account with the password given. Checking an
 * existing account's password is a sign-in, throttled like one; refused before it is recorded when
 * the hashing bound is reached already (hash-gate.ts).
 */
export async function linkAccount(
  deps: DashboardDeps, request: FastifyRequest, email: string, password: string,
): Promise<{ userId: string } | { email: string; passwordHash: string }> {
  const existing = await deps.store.userByEmail(email);
  if (!existing) {
    checkPasswordRules(password);
    return { email, passwordHash: await hashPassword(password) };
  }
  refuseIfHashingFull();
  const decision = await deps.store.takeSignInAttempt(existing.email, clientIp(request, deps), deps.clock.now());
  if (!decision.allowed) throw throttled(decision.retryAfterSeconds);
  if (!(await verifyPassword(password, existing.password_hash))) {
    throw new DomainError('invalid_credentials', 'This email has an account: accept with its password.', { param: 'password' });
  }
  return { userId: existing.id };
}
