import type { Pool } from '../../services/platform/db.js';
import { MAIL_WINDOW_MS } from './mail-throttle.js';
import { SIGN_IN_WINDOW_MS } from './throttle-rule.js';

/**
 * What the dashboard's sweep (gateway/dashboard/sweep.ts) deletes: mailed links past their expiry
 * (used or not: a spent link is never read again, the audit log keeps what happened) and throttle
 * rows older than their window. Each statement deletes at most BATCH rows so a backlog is worked
 * off over several runs without one long lock.
 */

const BATCH = 5_000;

const EXPIRED: { table: string; column: string; keepMs: number }[] = [
  { table: 'password_resets', column: 'expires_at', keepMs: 0 },
  { table: 'invitations', column: 'expires_at', keepMs: 0 },
  { table: 'registrations', column: 'expires_at', keepMs: 0 },
  { table: 'owner_links', column: 'expires_at', keepMs: 0 },
  { table: 'mail_sends', column: 'sent_at', keepMs: MAIL_WINDOW_MS },
  { table: 'sign_in_attempts', column: 'attempted_at', keepMs: SIGN_IN_WINDOW_MS },
];

export function createSweepStore(pool: Pool) {
  return {
    /** Deletes one batch of each kind that is over by `at`; answers how many rows of each went. */
    async sweepDashboardRows(at: Date): Promise<Record<string, number>> {
      const deleted: Record<string, number> = {};
      for (const { table, column, keepMs } of EXPIRED) {
        const { rowCount } = await pool.query(
          `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${column} <= $1 LIMIT ${BATCH})`,
          [new Date(at.getTime() - keepMs)],
        );
        deleted[table] = rowCount ?? 0;
      }
      return deleted;
    },
  };
}

export type SweepStore = ReturnType<typeof createSweepStore>;
