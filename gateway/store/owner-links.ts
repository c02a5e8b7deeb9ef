import { withTransaction, type Pool } from '../../services/platform/db.js';
import { audit } from './keys.js';
import { insertUser, isEmailTaken, userActor } from './users.js';

/**
 * Owner sign-in links (gateway/dashboard/owner-link-routes.ts): a merchant made without a person,
 * as `npm start`'s first merchant is, gets its owner through one. Only the token's SHA-256 is stored;
 * the link is spent in the transaction that makes its user an owner.
 */
export function createOwnerLinkStore(pool: Pool) {
  return {
    /** Stores a link of the merchant; false when there is no such merchant. Audited as `actor`. */
    async createOwnerLink(l: { merchantId: string; tokenHash: string; actor: string; at: Date; expiresAt: Date }): Promise<boolean> {
      return withTransaction(pool, async (tx) => {
        const { rowCount } = await tx.query(
          `INSERT INTO owner_links (token_hash, merchant_id, created_by, created_at, expires_at)
           SELECT $1, id, $3, $4, $5 FROM merchants WHERE id = $2`,
          [l.tokenHash, l.merchantId, l.actor, l.at, l.expiresAt],
        );
        if (rowCount === 0) return false;
        await audit(tx, l.actor, 'merchant.owner_link_issued', l.at, {
          merchantId: l.merchantId, data: { expires_at: l.expiresAt.toISOString() },
        });
        return true;
      });
    },

    /** Whether a link is open (unused, unexpired): one indexed lookup, checked before any hashing. */
    async isOwnerLinkOpen(tokenHash: string, at: Date): Promise<boolean> {
      const { rows } = await pool.query(
        'SELECT 1 FROM owner_links WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2', [tokenHash, at],
      );
      return rows.length > 0;
    },

    /**
     * Spends a link: an existing user, or one created here with the password hash, becomes an owner
     * of its merchant (a member of it already is promoted). Undefined when the link was spent or
     * expired meanwhile; 'email_taken' when the email got an account since it was looked up.
     */
    async useOwnerLink(
      tokenHash: string, who: { userId: string } | { email: string; passwordHash: string }, at: Date,
    ): Promise<{ userId: string; merchantId: string } | { refused: 'email_taken' } | undefined> {
      try {
        return await withTransaction(pool, async (tx) => {
          const { rows } = await tx.query(
            `UPDATE owner_links SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
             RETURNING merchant_id`,
            [tokenHash, at],
          );
          if (rows.length === 0) return undefined;
          const merchantId: string = rows[0].merchant_id;
          const userId = 'userId' in who ? who.userId : await insertUser(tx, who.email, who.passwordHash, at);
          await tx.query(
            `INSERT INTO memberships (user_id, merchant_id, role, created_at) VALUES ($1, $2, 'owner', $3)
             ON CONFLICT (user_id, merchant_id) DO UPDATE SET role = 'owner'`,
            [userId, merchantId, at],
          );
          await audit(tx, userActor(userId), 'member.joined', at, {
            merchantId, targetId: userId, data: { role: 'owner', by: 'owner_link' },
          });
          return { userId, merchantId };
        });
      } catch (err) {
        if (isEmailTaken(err)) return { refused: 'email_taken' as const };
        throw err;
      }
    },
  };
}

export type OwnerLinkStore = ReturnType<typeof createOwnerLinkStore>;
