import { withTransaction, type Pool } from '../../services/platform/db.js';
import { audit } from './keys.js';
import { userActor } from './users.js';

/**
 * Changes to a merchant's team besides inviting and joining (mailed-links.ts): removing a member,
 * whose sessions on that merchant end with the membership, and revoking a pending invitation.
 */
export function createTeamStore(pool: Pool) {
  return {
    /**
     * Removes a member unless they are the merchant's last owner (a merchant always keeps one).
     * The memberships are locked so two owners removing each other at once cannot leave none.
     */
    async removeMember(merchantId: string, userId: string, actorId: string, at: Date) {
      return withTransaction(pool, async (tx) => {
        const { rows } = await tx.query(
          'SELECT user_id, role FROM memberships WHERE merchant_id = $1 ORDER BY user_id FOR UPDATE', [merchantId],
        );
        const member = rows.find((r) => r.user_id === userId);
        if (!member) return { refused: 'not_found' as const };
        if (member.role === 'owner' && rows.filter((r) => r.role === 'owner').length === 1) {
          return { refused: 'last_owner' as const };
        }
        await tx.query('DELETE FROM memberships WHERE merchant_id = $1 AND user_id = $2', [merchantId, userId]);
        const ended = await tx.query('DELETE FROM sessions WHERE merchant_id = $1 AND user_id = $2', [merchantId, userId]);
        await audit(tx, userActor(actorId), 'member.removed', at, { merchantId, targetId: userId, data: { role: member.role } });
        return { removed: true as const, sessionsEnded: ended.rowCount ?? 0 };
      });
    },

    /** Revokes a pending invitation: its link stops working. False when there is none to revoke. */
    async revokeInvitation(merchantId: string, invitationId: string, actorId: string, at: Date): Promise<boolean> {
      return withTransaction(pool, async (tx) => {
        const { rows } = await tx.query(
          'DELETE FROM invitations WHERE id = $1 AND merchant_id = $2 AND accepted_at IS NULL RETURNING email, role',
          [invitationId, merchantId],
        );
        if (rows.length === 0) return false;
        await audit(tx, userActor(actorId), 'member.invitation_revoked', at, {
          merchantId, targetId: invitationId, data: { email: rows[0].email, role: rows[0].role },
        });
        return true;
      });
    },

    /** The emails of the merchant's owners (whom a disabled webhook endpoint is mailed to). */
    async ownerEmails(merchantId: string): Promise<string[]> {
      const { rows } = await pool.query(
        `SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id
         WHERE m.merchant_id = $1 AND m.role = 'owner' ORDER BY u.email`,
        [merchantId],
      );
      return rows.map((r) => r.email as string);
    },

    async isMemberByEmail(merchantId: string, email: string): Promise<boolean> {
      const { rows } = await pool.query(
        'SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.merchant_id = $1 AND u.email = $2',
        [merchantId, email],
      );
      return rows.length > 0;
    },
  };
}

export type TeamStore = ReturnType<typeof createTeamStore>;
