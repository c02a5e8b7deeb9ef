import type { Pool } from '../../services/platform/db.js';

/**
 * Sessions of the deployment's operators in the dashboard, begun with OPERATOR_TOKEN
 * (gateway/dashboard/operator-routes.ts). Kept apart from merchants' sessions (sessions.ts): a row
 * here names no user and no merchant, and neither kind of cookie is ever looked up in the other table.
 */
export function createOperatorSessionStore(pool: Pool) {
  return {
    async createOperatorSession(tokenHash: string, at: Date, expiresAt: Date, clientAddress: string): Promise<void> {
      await pool.query(
        `INSERT INTO operator_sessions (token_hash, created_at, last_seen_at, expires_at, client_address)
         VALUES ($1, $2, $2, $3, $4)`,
        [tokenHash, at, expiresAt, clientAddress],
      );
      await pool.query('DELETE FROM operator_sessions WHERE expires_at <= $1', [at]);
    },

    /** Whether the token's session is live (not expired, used within the idle limit); marks it seen. */
    async touchOperatorSession(tokenHash: string, at: Date, idleMs: number): Promise<boolean> {
      const { rowCount } = await pool.query(
        `UPDATE operator_sessions SET last_seen_at = $2 WHERE token_hash = $1 AND expires_at > $2 AND last_seen_at > $3`,
        [tokenHash, at, new Date(at.getTime() - idleMs)],
      );
      return (rowCount ?? 0) > 0;
    },

    async endOperatorSession(tokenHash: string): Promise<void> {
      await pool.query('DELETE FROM operator_sessions WHERE token_hash = $1', [tokenHash]);
    },
  };
}
