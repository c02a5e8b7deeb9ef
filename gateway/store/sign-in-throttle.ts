import { withTransaction, type Pool } from '../../services/platform/db.js';
import { decideAttempt, SIGN_IN_WINDOW_MS, type ThrottleDecision } from './throttle-rule.js';

/**
 * The sign-in throttle's records (the rule is throttle-rule.ts): one row per attempt
 * still counted as a failure. An attempt is taken before the password is checked, under a
 * transaction-scoped advisory lock on the pair, so parallel guesses cannot all slip through; a right
 * password clears the pair, and an attempt that was never checked (hashing busy) is given back.
 * Rows older than SIGN_IN_WINDOW_MS are deleted in passing; a sweep may delete them too.
 */
export function createSignInThrottleStore(pool: Pool) {
  return {
    async takeSignInAttempt(email: string, ip: string, at: Date): Promise<ThrottleDecision> {
      return withTransaction(pool, async (tx) => {
        await tx.query(`SELECT pg_advisory_xact_lock(hashtext('sign-in:' || $1 || ' ' || $2))`, [email, ip]);
        const since = new Date(at.getTime() - SIGN_IN_WINDOW_MS);
        await tx.query('DELETE FROM sign_in_attempts WHERE email = $1 AND ip = $2 AND attempted_at <= $3', [email, ip, since]);
        const { rows } = await tx.query(
          'SELECT attempted_at FROM sign_in_attempts WHERE email = $1 AND ip = $2', [email, ip],
        );
        const decision = decideAttempt(rows.map((r) => new Date(r.attempted_at)), at);
        if (decision.allowed) {
          await tx.query('INSERT INTO sign_in_attempts (email, ip, attempted_at) VALUES ($1, $2, $3)', [email, ip, at]);
        }
        return decision;
      });
    },

    /** A successful sign-in forgets the pair's failures. */
    async clearSignInAttempts(email: string, ip: string): Promise<void> {
      await pool.query('DELETE FROM sign_in_attempts WHERE email = $1 AND ip = $2', [email, ip]);
    },

    /** Forgets the attempt taken at `at` whose password was never checked (the hashing bound refused it). */
    async giveBackSignInAttempt(email: string, ip: string, at: Date): Promise<void> {
      await pool.query(
        `DELETE FROM sign_in_attempts WHERE ctid IN (
           SELECT ctid FROM sign_in_attempts WHERE email = $1 AND ip = $2 AND attempted_at = $3 LIMIT 1)`,
        [email, ip, at],
      );
    },
  };
}

export type SignInThrottleStore = ReturnType<typeof createSignInThrottleStore>;
