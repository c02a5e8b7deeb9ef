import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import { signIn } from './account-routes.js';
import type { DashboardDeps } from './context.js';
import { linkAccount } from './link-account.js';
import { invalidLink } from './password-routes.js';
import { AcceptOwnerLinkBody, normalEmail } from './schemas.js';
import { isTokenShaped, tokenHash } from './tokens.js';

// Opening an owner sign-in link (issued by owner-links.ts):
//   POST /dashboard/api/owner-link/accept  {token, email, password}  201, signed in as an owner of its merchant
// A new email gets an account with that password; an email with an account accepts with its password.
// The link works once, within a day.

export function ownerLinkRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const { store, clock } = deps;

  scope.post('/owner-link/accept', {
    config: { dashboard: { public: true }, throttle: 'owner-link-accept' }, schema: { body: AcceptOwnerLinkBody },
  }, async (request, reply) => {
    const body = request.body as { token: string; email: string; password: string };
    // Cheap checks first: scrypt work is spent only on a link that can still be used.
    if (!isTokenShaped(body.token)) throw invalidLink('sign-in');
    const hash = tokenHash(body.token);
    if (!(await store.isOwnerLinkOpen(hash, clock.now()))) throw invalidLink('sign-in');
    const who = await linkAccount(deps, request, normalEmail(body.email), body.password);
    const used = await store.useOwnerLink(hash, who, clock.now());
    if (!used) throw invalidLink('sign-in');
    if ('refused' in used) {
      throw new DomainError('email_taken', 'This email got an account meanwhile; accept with its password.', { param: 'email' });
    }
    return reply.code(201).send(await signIn(deps, request, reply, used.userId, used.merchantId));
  });
}
