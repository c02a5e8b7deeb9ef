import type { Pool, Queryable } from '../../services/platform/db.js';
import { newId } from '../../services/platform/ids.js';
import { audit, insertMerchant } from './keys.js';

/** The dashboard's users and their memberships of merchants (gateway/dashboard/ uses them). */

/** A member's role in a merchant; what each may do is gateway/dashboard/roles.ts's. */
export const ROLES = ['owner', 'developer', 'read_only'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export interface UserRow {
  id: string;
  email: string;
  password_hash: string;
}

export interface MemberView {
  user_id: string;
  email: string;
  role: Role;
  joined_at: string;
}

export const isEmailTaken = (err: unknown) => (err as { code?: string; constraint?: string })?.code === '23505'
  && (err as { constraint?: string }).constraint === 'users_email_key';

/** The actor the audit log names for a dashboard user. */
export const userActor = (userId: string) => `user:${userId}`;

export async function insertUser(tx: Queryable, email: string, passwordHash: string, at: Date): Promise<string> {
  const id = newId('usr', at);
  await tx.query(
    'INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)',
    [id, email, passwordHash, at],
  );
  return id;
}

export async function insertMembership(tx: Queryable, userId: string, merchantId: string, role: Role, at: Date) {
  // A second invitation to the same merchant keeps the membership (and role) the user already has.
  await tx.query(
    `INSERT INTO memberships (user_id, merchant_id, role, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id, merchant_id) DO NOTHING`,
    [userId, merchantId, role, at],
  );
}

/**
 * Registration, inside the caller's transaction: the user, their merchant with its default project
 * (the management API's own insertMerchant), and the owner membership. A taken email raises the
 * unique violation isEmailTaken recognises.
 */
export async function insertOwner(tx: Queryable, email: string, passwordHash: string, merchantName: string, at: Date) {
  const userId = await insertUser(tx, email, passwordHash, at);
  const { merchant, project } = await insertMerchant(tx, merchantName, userActor(userId), at);
  await insertMembership(tx, userId, merchant.id, 'owner', at);
  await audit(tx, userActor(userId), 'user.registered', at, { merchantId: merchant.id, targetId: userId });
  return { userId, merchant, project };
}

export function createUserStore(pool: Pool) {
  return {
    async userByEmail(email: string): Promise<UserRow | undefined> {
      const { rows } = await pool.query('SELECT id, email, password_hash FROM users WHERE email = $1', [email]);
      return rows[0];
    },

    /** The merchant a user signs in to: their oldest membership, with that merchant's oldest project. */
    async defaultMembership(userId: string): Promise<{ merchantId: string; projectId: string } | undefined> {
      const { rows } = await pool.query(
        `SELECT m.merchant_id, (SELECT p.id FROM projects p WHERE p.merchant_id = m.merchant_id
                                ORDER BY p.created_at, p.id LIMIT 1) AS project_id
         FROM memberships m WHERE m.user_id = $1 ORDER BY m.created_at, m.merchant_id LIMIT 1`,
        [userId],
      );
      return rows[0] && { merchantId: rows[0].merchant_id, projectId: rows[0].project_id };
    },

    /** The oldest project of a merchant, where a new session starts. */
    async defaultProject(merchantId: string): Promise<string | undefined> {
      const { rows } = await pool.query(
        'SELECT id FROM projects WHERE merchant_id = $1 ORDER BY created_at, id LIMIT 1', [merchantId],
      );
      return rows[0]?.id;
    },

    async listMembers(merchantId: string): Promise<MemberView[]> {
      const { rows } = await pool.query(
        `SELECT u.id, u.email, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id
         WHERE m.merchant_id = $1 ORDER BY m.created_at, u.id`,
        [merchantId],
      );
      return rows.map((r) => ({
        user_id: r.id, email: r.email, role: r.role, joined_at: new Date(r.created_at).toISOString(),
      }));
    },
  };
}

export type UserStore = ReturnType<typeof createUserStore>;
