import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import { sessionOf, type DashboardDeps } from './context.js';

// Changing the merchant's team (owners, with the session's CSRF token like every change):
//   POST /dashboard/api/members/:user_id/remove   the membership ends, and with it the member's sessions
//                                                 on this merchant; never the last owner (409)
//   POST /dashboard/api/invitations/:id/revoke    a pending invitation is deleted: its link stops working
// Both are audited (member.removed, member.invitation_revoked) as the owner who did it.

const ID = { type: 'string', minLength: 1, maxLength: 100 } as const;
const params = (name: string) => ({ type: 'object', required: [name], properties: { [name]: ID } }) as const;

export function memberRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const { store, clock } = deps;

  scope.post('/members/:user_id/remove', {
    config: { dashboard: { permission: 'administer' } }, schema: { params: params('user_id') },
  }, async (request) => {
    const session = sessionOf(request);
    const { user_id: userId } = request.params as { user_id: string };
    const result = await store.removeMember(session.merchant.id, userId, session.user.id, clock.now());
    if ('refused' in result && result.refused === 'not_found') {
      throw new DomainError('resource_not_found', `No member ${userId} in this merchant.`, { param: 'user_id' });
    }
    if ('refused' in result) {
      throw new DomainError('invalid_state_transition',
        'This is the merchant\'s last owner: invite another owner before removing this one.', { param: 'user_id' });
    }
    return { removed: true, user_id: userId, sessions_ended: result.sessionsEnded };
  });

  scope.post('/invitations/:id/revoke', {
    config: { dashboard: { permission: 'administer' } }, schema: { params: params('id') },
  }, async (request) => {
    const session = sessionOf(request);
    const { id } = request.params as { id: string };
    if (!(await store.revokeInvitation(session.merchant.id, id, session.user.id, clock.now()))) {
      throw new DomainError('resource_not_found', `No pending invitation ${id} in this merchant.`, { param: 'id' });
    }
    return { revoked: true, id };
  });
}
