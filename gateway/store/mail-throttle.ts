import { withTransaction, type Pool } from '../../services/platform/db.js';
import { decideWindow, type ThrottleDecision } from './throttle-rule.js';

// How many mails the dashboard sends to one address: at most MAIL_LIMIT_PER_ADDRESS in a sliding
// window of MAIL_WINDOW_MS, counting every kind (password resets, registration links, notices,
// invitations). Enough for a person who asks again because a mail is slow; too few to flood a
// mailbox or the deployment's sending reputation. Counted in Postgres, so every replica spends one budget.
export const MAIL_LIMIT_PER_ADDRESS = 5;
export const MAIL_WINDOW_MS = 3_600_000;

/**
 * The mail budget per recipient (throttle-rule.ts's decideWindow). A send is taken
 * before the mail goes out, under a transaction-scoped advisory lock on the address, so parallel
 * requests cannot all slip under the limit.
 */
export function createMailThrottleStore(pool: Pool) {
  return {
    async takeMailSend(email: string, at: Date): Promise<ThrottleDecision> {
      return withTransaction(pool, async (tx) => {
        await tx.query(`SELECT pg_advisory_xact_lock(hashtext('mail:' || $1))`, [email]);
        const { rows } = await tx.query(
          'SELECT sent_at FROM mail_sends WHERE email = $1 AND sent_at > $2',
          [email, new Date(at.getTime() - MAIL_WINDOW_MS)],
        );
        const decision = decideWindow(rows.map((r) => new Date(r.sent_at)), at, MAIL_LIMIT_PER_ADDRESS, MAIL_WINDOW_MS);
        if (decision.allowed) await tx.query('INSERT INTO mail_sends (email, sent_at) VALUES ($1, $2)', [email, at]);
        return decision;
      });
    },
  };
}

export type MailThrottleStore = ReturnType<typeof createMailThrottleStore>;
