import { withTransaction, type Pool } from '../../services/platform/db.js';
import { newId } from '../../services/platform/ids.js';
import { audit } from './keys.js';
import { insertMembership, insertUser, userActor, type Role } from './users.js';

/**
 * What the dashboard mails as links: password resets and invitations. Only the token's SHA-256 is
 * stored; each link works once, before its expiry, and is spent in the transaction that uses it.
 */

export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

function invitationView(r: Record<string, any>): InvitationView {
  return {
    id: r.id, email: r.email, role: r.role, created_at: new Date(r.created_at).toISOString(),
    expires_at: new Date(r.expires_at).toISOString(), accepted_at: r.accepted_at ? new Date(r.accepted_at).toISOString() : null,
  };
}

export function createMailedLinkStore(pool: Pool) {
  return {
    async createPasswordReset(userId: string, tokenHash: string, at: Date, expiresAt: Date): Promise<void> {
      await pool.query(
        'INSERT INTO password_resets (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)',
        [tokenHash, userId, at, expiresAt],
      );
    },

    /**
     * Spends a reset link and sets the new password; every session of the user ends with it (whoever
     * knew the old password is signed out). Undefined for an unknown, used or expired link.
     */
    /** Whether a reset link is open (unused, unexpired): one indexed lookup, checked before any hashing. */
    async isPasswordResetOpen(tokenHash: string, at: Date): Promise<boolean> {
      const { rows } = await pool.query(
        'SELECT 1 FROM password_resets WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2', [tokenHash, at],
      );
      return rows.length > 0;
    },

    async resetPassword(tokenHash: string, passwordHash: string, at: Date): Promise<string | undefined> {
      return withTransaction(pool, async (tx) => {
        const { rows } = await tx.query(
          `UPDATE password_resets SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
           RETURNING user_id`,
          [tokenHash, at],
        );
        if (rows.length === 0) return undefined;
        const userId: string = rows[0].user_id;
        await tx.query('UPDATE users SET password_hash = $2, updated_at = $3 WHERE id = $1', [userId, passwordHash, at]);
        // Other links mailed before this one are spent too: the newest reset is the one that counted.
        await tx.query('UPDATE password_resets SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL', [userId, at]);
        await tx.query('DELETE FROM sessions WHERE user_id = $1', [userId]);
        await audit(tx, userActor(userId), 'user.password_reset', at, { targetId: userId });
        return userId;
      });
    },

    async createInvitation(i: {
      merchantId: string; email: string; role: Role; tokenHash: string; invitedBy: string; at: Date; expiresAt: Date;
    }): Promise<InvitationView> {
      return withTransaction(pool, async (tx) => {
        // Inviting an email again replaces its pending invitation: the new role counts, the old link stops working.
        const replaced = await tx.query(
          'DELETE FROM invitations WHERE merchant_id = $1 AND email = $2 AND accepted_at IS NULL RETURNING id',
          [i.merchantId, i.email],
        );
        const { rows } = await tx.query(
          `INSERT INTO invitations (id, merchant_id, email, role, token_hash, invited_by, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
          [newId('inv', i.at), i.merchantId, i.email, i.role, i.tokenHash, i.invitedBy, i.at, i.expiresAt],
        );
        await audit(tx, userActor(i.invitedBy), 'member.invited', i.at, {
          merchantId: i.merchantId, targetId: rows[0].id,
          data: { email: i.email, role: i.role, replaced: replaced.rows.map((r) => r.id) },
        });
        return invitationView(rows[0]);
      });
    },

    async listInvitations(merchantId: string): Promise<InvitationView[]> {
      const { rows } = await pool.query(
        'SELECT * FROM invitations WHERE merchant_id = $1 ORDER BY created_at, id', [merchantId],
      );
      return rows.map(invitationView);
    },

    /** An invitation that can still be accepted, undefined otherwise. */
    async openInvitation(tokenHash: string, at: Date) {
      const { rows } = await pool.query(
        `SELECT id, merchant_id, email, role FROM invitations
         WHERE token_hash = $1 AND accepted_at IS NULL AND expires_at > $2`,
        [tokenHash, at],
      );
      return rows[0] as { id: string; merchant_id: string; email: string; role: Role } | undefined;
    },

    /**
     * Accepts an invitation for an existing user, or for a new one created here with the given
     * password hash. Undefined when the link was spent or expired meanwhile.
     */
    async acceptInvitation(
      tokenHash: string, who: { userId: string } | { email: string; passwordHash: string }, at: Date,
    ): Promise<{ userId: string; merchantId: string } | undefined> {
      return withTransaction(pool, async (tx) => {
        const { rows } = await tx.query(
          `UPDATE invitations SET accepted_at = $2 WHERE token_hash = $1 AND accepted_at IS NULL AND expires_at > $2
           RETURNING id, merchant_id, role`,
          [tokenHash, at],
        );
        if (rows.length === 0) return undefined;
        const userId = 'userId' in who ? who.userId : await insertUser(tx, who.email, who.passwordHash, at);
        await insertMembership(tx, userId, rows[0].merchant_id, rows[0].role, at);
        await audit(tx, userActor(userId), 'member.joined', at, {
          merchantId: rows[0].merchant_id, targetId: userId, data: { invitation_id: rows[0].id, role: rows[0].role },
        });
        return { userId, merchantId: rows[0].merchant_id };
      });
    },
  };
}

export type MailedLinkStore = ReturnType<typeof createMailedLinkStore>;
