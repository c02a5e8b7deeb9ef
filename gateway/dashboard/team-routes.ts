import type { FastifyInstance, FastifyReply } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import type { Role } from '../store/index.js';
import { signIn } from './account-routes.js';
import { sessionOf, type DashboardDeps } from './context.js';
import { INVITATION_LIFETIME_MS, linkBase, linkTo } from './links.js';
import { deliveryOf } from './mail-message.js';
import { linkAccount } from './link-account.js';
import { invalidLink } from './password-routes.js';
import { AcceptInvitationBody, InvitationBody, normalEmail } from './schemas.js';
import { isTokenShaped, newToken, tokenHash } from './tokens.js';

// The merchant's team:
//   GET  /dashboard/api/members                 members and invitations (any member)
//   POST /dashboard/api/invitations             {email, role}: mails an accept link (owners); 201 the
//                                               invitation and where its link went (link_delivery)
//   POST /dashboard/api/invitations/accept      {token, password}: joins, signed in to that merchant
// Inviting an email again replaces its pending invitation (role and link); inviting a member is
// refused (409 email_taken). Removing members and revoking invitations: member-routes.ts.
// Accepting as an email that already has an account takes that account's password (and adds the
// membership); otherwise the account is created with the password given.

function mailBudgetSpent(reply: FastifyReply, retryAfterSeconds: number): DomainError {
  reply.header('retry-after', String(retryAfterSeconds));
  return new DomainError('rate_limited',
    `This address was mailed as often as an hour allows; invite it again in ${retryAfterSeconds} seconds.`, { param: 'email' });
}

export function teamRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const { store, clock, mailer } = deps;

  scope.get('/members', { config: { dashboard: { permission: 'view' } } }, async (request) => {
    const { merchant } = sessionOf(request);
    const [members, invitations] = await Promise.all([store.listMembers(merchant.id), store.listInvitations(merchant.id)]);
    return { data: members, invitations: invitations.filter((i) => i.accepted_at === null) };
  });

  scope.post('/invitations', {
    config: { dashboard: { permission: 'administer' } }, schema: { body: InvitationBody },
  }, async (request, reply) => {
    const session = sessionOf(request);
    const body = request.body as { email: string; role: Role };
    const email = normalEmail(body.email);
    linkBase(deps); // refused before anything is made when links cannot be mailed
    if (await store.isMemberByEmail(session.merchant.id, email)) {
      throw new DomainError('email_taken',
        'This email is already a member of this merchant; to change their role, remove them and invite them again.', { param: 'email' });
    }
    // An owner is asking, who may know the budget is spent: 429, and no invitation is made.
    const budget = await store.takeMailSend(email, clock.now());
    if (!budget.allowed) throw mailBudgetSpent(reply, budget.retryAfterSeconds);
    const token = newToken();
    const at = clock.now();
    const invitation = await store.createInvitation({
      merchantId: session.merchant.id, email, role: body.role, tokenHash: tokenHash(token), invitedBy: session.user.id,
      at, expiresAt: new Date(at.getTime() + INVITATION_LIFETIME_MS),
    });
    await mailer.send({
      to: email,
      subject: `You are invited to ${session.merchant.name}`,
      text: `${session.user.email} invites you to the dashboard of ${session.merchant.name} as ${body.role.replace('_', '-')}.\n\n`
        + `Accept within seven days: ${linkTo(deps, 'invitation', token)}`,
    });
    return reply.code(201).send({ ...invitation, link_delivery: deliveryOf(mailer) });
  });

  scope.post('/invitations/accept', {
    config: { dashboard: { public: true }, throttle: 'invitation-accept' }, schema: { body: AcceptInvitationBody },
  }, async (request, reply) => {
    const body = request.body as { token: string; password: string };
    if (!isTokenShaped(body.token)) throw invalidLink('invitation');
    const hash = tokenHash(body.token);
    const invitation = await store.openInvitation(hash, clock.now());
    if (!invitation) throw invalidLink('invitation');
    const who = await linkAccount(deps, request, invitation.email, body.password);
    const accepted = await store.acceptInvitation(hash, who, clock.now());
    if (!accepted) throw invalidLink('invitation');
    return reply.code(201).send(await signIn(deps, request, reply, accepted.userId, accepted.merchantId));
  });
}
