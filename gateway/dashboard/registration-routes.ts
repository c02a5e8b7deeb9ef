import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import { signIn } from './account-routes.js';
import type { DashboardDeps } from './context.js';
import { deliveryOf } from './mail-message.js';
import { linkBase, linkTo, REGISTRATION_LIFETIME_MS } from './links.js';
import { checkPasswordRules, hashPassword } from './passwords.js';
import { invalidLink } from './password-routes.js';
import { normalEmail, RegisterBody, RegisterConfirmBody } from './schemas.js';
import { isTokenShaped, newToken, tokenHash } from './tokens.js';

// Registration by a mailed link:
//   POST /dashboard/api/register          {email, password, merchant_name}  202 {accepted, link_delivery}, whoever owns the email
//   POST /dashboard/api/register/confirm  {token}                           201, the owner signed in to the new merchant
// The answer never says whether the email has an account: a new email is mailed a link that creates
// the account; an email with an account is mailed a notice naming the sign-in and reset pages. Both
// happen after the answer (after-answer.ts), so its timing tells nothing either. The password is
// hashed before the answer, whoever owns the email: the hashing bound (hash-gate.ts) can then refuse
// with 429 rather than drop a registration in the background.

export function registrationRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const { store, clock, mailer } = deps;

  scope.post('/register', { config: { dashboard: { public: true }, throttle: 'register' }, schema: { body: RegisterBody } }, async (request, reply) => {
    const body = request.body as { email: string; password: string; merchant_name: string };
    checkPasswordRules(body.password);
    linkBase(deps); // refused before anything is made when links cannot be mailed
    const email = normalEmail(body.email);
    const passwordHash = await hashPassword(body.password);
    deps.later.run('registration mail', async () => {
      const existing = await store.userByEmail(email);
      if (!(await store.takeMailSend(email, clock.now())).allowed) return;
      if (existing) {
        await mailer.send({
          to: email,
          subject: 'Someone tried to register with your email',
          text: `Someone tried to create a dashboard account with this email, which already has one; nothing was changed.\n\n`
            + `To sign in: ${linkTo(deps, 'sign-in')}\nForgot your password? ${linkTo(deps, 'reset')}\n\n`
            + 'If it was not you, you can ignore this message.',
        });
        return;
      }
      const token = newToken();
      const at = clock.now();
      await store.createRegistration({
        tokenHash: tokenHash(token), email, passwordHash, merchantName: body.merchant_name, at,
        expiresAt: new Date(at.getTime() + REGISTRATION_LIFETIME_MS),
      });
      await mailer.send({
        to: email,
        subject: 'Confirm your dashboard account',
        text: `To create the dashboard account of ${body.merchant_name} with this email, open this link within a day:\n\n`
          + `${linkTo(deps, 'confirm', token)}\n\nIf it was not you, ignore this message; no account is created without it.`,
      });
    });
    return reply.code(202).send({ accepted: true, link_delivery: deliveryOf(mailer) });
  });

  scope.post('/register/confirm', {
    config: { dashboard: { public: true }, throttle: 'register-confirm' }, schema: { body: RegisterConfirmBody },
  }, async (request, reply) => {
    const { token } = request.body as { token: string };
    if (!isTokenShaped(token)) throw invalidLink('registration');
    const result = await store.confirmRegistration(tokenHash(token), clock.now());
    if (!result) throw invalidLink('registration');
    // The mailbox's owner is asking: saying the account exists reveals nothing to them.
    if ('refused' in result) {
      throw new DomainError('email_taken', 'This email has an account already; sign in or reset its password.', { param: 'token' });
    }
    return reply.code(201).send(await signIn(deps, request, reply, result.userId, result.merchant.id));
  });
}
