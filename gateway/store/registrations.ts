import { withTransaction, type Pool } from '../../services/platform/db.js';
import { insertOwner, isEmailTaken } from './users.js';

/**
 * Registrations waiting for their mailed link (gateway/dashboard/registration-routes.ts). Only the
 * token's SHA-256 and the password's scrypt hash are kept; confirming spends the row and creates
 * the owner, their merchant and its default project in one transaction.
 */
export function createRegistrationStore(pool: Pool) {
  return {
    async createRegistration(r: {
      tokenHash: string; email: string; passwordHash: string; merchantName: string; at: Date; expiresAt: Date;
    }): Promise<void> {
      await pool.query(
        `INSERT INTO registrations (token_hash, email, password_hash, merchant_name, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [r.tokenHash, r.email, r.passwordHash, r.merchantName, r.at, r.expiresAt],
      );
    },

    /**
     * Spends a registration link: the account exists afterwards. Undefined for an unknown, used or
     * expired link; 'email_taken' when another link for the same email was confirmed first.
     */
    async confirmRegistration(tokenHash: string, at: Date) {
      try {
        return await withTransaction(pool, async (tx) => {
          const { rows } = await tx.query(
            'DELETE FROM registrations WHERE token_hash = $1 AND expires_at > $2 RETURNING *', [tokenHash, at],
          );
          if (rows.length === 0) return undefined;
          // The other pending links of this email are spent with it: one account per mailbox.
          await tx.query('DELETE FROM registrations WHERE email = $1', [rows[0].email]);
          return insertOwner(tx, rows[0].email, rows[0].password_hash, rows[0].merchant_name, at);
        });
      } catch (err) {
        if (isEmailTaken(err)) return { refused: 'email_taken' as const };
        throw err;
      }
    },
  };
}

export type RegistrationStore = ReturnType<typeof createRegistrationStore>;
