import type { Pool } from '../../services/platform/db.js';
import { newId } from '../../services/platform/ids.js';
import type { Mode } from './keys.js';
import type { Role } from './users.js';

/**
 * Dashboard sessions. The browser holds the token; the row holds its SHA-256 (gateway/dashboard/
 * tokens.ts). A session is valid until expires_at and while used within the idle limit; the role is
 * read from the membership on every request, so removing a member or changing a role holds at once.
 */

export interface SessionContext {
  id: string;
  mode: Mode;
  role: Role;
  user: { id: string; email: string };
  merchant: { id: string; name: string; verificationStatus: string };
  project: { id: string; name: string };
}

// One statement per request: the session is found, checked for expiry and idleness, and marked seen.
const TOUCH_SQL = `
UPDATE sessions s SET last_seen_at = $2
FROM users u, memberships mb, merchants m, projects p
WHERE s.token_hash = $1 AND s.expires_at > $2 AND s.last_seen_at > $3
  AND u.id = s.user_id AND mb.user_id = s.user_id AND mb.merchant_id = s.merchant_id
  AND m.id = s.merchant_id AND p.id = s.project_id
RETURNING s.id, s.mode, mb.role, u.id AS user_id, u.email, m.id AS merchant_id, m.name AS merchant_name,
  m.verification_status, p.id AS project_id, p.name AS project_name`;

function contextOf(r: Record<string, any>): SessionContext {
  return {
    id: r.id,
    mode: r.mode,
    role: r.role,
    user: { id: r.user_id, email: r.email },
    merchant: { id: r.merchant_id, name: r.merchant_name, verificationStatus: r.verification_status },
    project: { id: r.project_id, name: r.project_name },
  };
}

export function createSessionStore(pool: Pool) {
  return {
    async createSession(s: {
      tokenHash: string; userId: string; merchantId: string; projectId: string; at: Date; expiresAt: Date;
    }): Promise<string> {
      const id = newId('ses', s.at);
      await pool.query(
        `INSERT INTO sessions (id, token_hash, user_id, merchant_id, project_id, created_at, last_seen_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6, $7)`,
        [id, s.tokenHash, s.userId, s.merchantId, s.projectId, s.at, s.expiresAt],
      );
      return id;
    },

    /** The live session behind a token's hash, marked seen at `at`; undefined when there is none. */
    async touchSession(tokenHash: string, at: Date, idleMs: number): Promise<SessionContext | undefined> {
      const { rows } = await pool.query(TOUCH_SQL, [tokenHash, at, new Date(at.getTime() - idleMs)]);
      return rows[0] && contextOf(rows[0]);
    },

    async setSessionMode(sessionId: string, mode: Mode): Promise<void> {
      await pool.query('UPDATE sessions SET mode = $2 WHERE id = $1', [sessionId, mode]);
    },

    async deleteSession(sessionId: string): Promise<void> {
      await pool.query('DELETE FROM sessions WHERE id = $1', [sessionId]);
    },

    /** Sign-out everywhere (and what a password reset does): every session of the user ends. */
    async deleteUserSessions(userId: string): Promise<number> {
      const { rowCount } = await pool.query('DELETE FROM sessions WHERE user_id = $1', [userId]);
      return rowCount ?? 0;
    },

    /** Ended sessions are deleted in passing (a sign-in sweeps a batch), never read again. */
    async sweepSessions(at: Date): Promise<void> {
      await pool.query(
        `DELETE FROM sessions WHERE id IN (SELECT id FROM sessions WHERE expires_at <= $1 LIMIT 500)`, [at],
      );
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
