import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import type { DashboardDeps } from './context.js';
import { deliveryOf } from './mail-message.js';
import { linkBase, linkTo, RESET_LINK_LIFETIME_MS } from './links.js';
import { checkPasswordRules, hashPassword } from './passwords.js';
import { normalEmail, PasswordResetBody, PasswordResetConfirmBody } from './schemas.js';
import { isTokenShaped, newToken, tokenHash } from './tokens.js';

// Password reset by a mailed link:
//   POST /dashboard/api/password-reset          {email}            202 {accepted, link_delivery} whether or not the email has an account
//                                                                  (503 not_configured without PUBLIC_BASE_URL)
//   POST /dashboard/api/password-reset/confirm  {token, password}  the link works once, for an hour; every session ends
// Both are throttled per client address (address-throttle.ts); confirm hashes only for an open link.

export const invalidLink = (what: string) =>
  new DomainError('invalid_token', `This ${what} link is unknown, already used or expired; ask for a new one.`, { param: 'token' });

export function passwordRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const { store, clock, mailer } = deps;

  scope.post('/password-reset', { config: { dashboard: { public: true }, throttle: 'password-reset' }, schema: { body: PasswordResetBody } }, async (request, reply) => {
    const email = normalEmail((request.body as { email: string }).email);
    linkBase(deps); // refused before anything is made when links cannot be mailed
    // The same answer, at once, either way: the lookup and the mail happen after it, so neither the
    // answer nor its timing tells who has an account; a spent mail budget sends nothing, silently.
    deps.later.run('password reset mail', async () => {
      const user = await store.userByEmail(email);
      if (!user) return;
      const decision = await store.takeMailSend(user.email, clock.now());
      if (!decision.allowed) return;
      const token = newToken();
      const at = clock.now();
      await store.createPasswordReset(user.id, tokenHash(token), at, new Date(at.getTime() + RESET_LINK_LIFETIME_MS));
      await mailer.send({
        to: user.email,
        subject: 'Reset your password',
        text: `Someone asked to reset the password of your account. To choose a new one, open this link within an hour:\n\n`
          + `${linkTo(deps, 'reset', token)}\n\nIf it was not you, ignore this message; your password stays as it is.`,
      });
    });
    return reply.code(202).send({ accepted: true, link_delivery: deliveryOf(mailer) });
  });

  scope.post('/password-reset/confirm', {
    config: { dashboard: { public: true }, throttle: 'password-reset-confirm' }, schema: { body: PasswordResetConfirmBody },
  }, async (request) => {
    const body = request.body as { token: string; password: string };
    // Cheap checks first: scrypt work is spent only on a link that can still be used.
    if (!isTokenShaped(body.token)) throw invalidLink('password reset');
    if (!(await store.isPasswordResetOpen(tokenHash(body.token), clock.now()))) throw invalidLink('password reset');
    checkPasswordRules(body.password);
    // resetPassword checks the link again in its transaction: it may have been used meanwhile.
    const userId = await store.resetPassword(tokenHash(body.token), await hashPassword(body.password), clock.now());
    if (!userId) throw invalidLink('password reset');
    // Not signed in here: the user signs in with the new password (the throttle applies to that).
    return { password_reset: true };
  });
}
