import type { Pool } from '../../platform/db.js';

// Deliveries that are only a hint, read by fetching the payment from the provider (Mollie's unsigned
// `id=tr_…`): anyone who knows an account's webhook address may post them, and each fetch spends the
// merchant's rate limit at the provider. So, in the database (replicas share it, on its clock):
//   - an id that is none of the account's attempts is never fetched (receive.ts checks first);
//   - one fetch per (account, payment id) per WINDOW_MS: a post within the window of the last
//     fetch is answered without one and marks the id `again`, and the follow-up (follow-up.ts)
//     fetches it once after the window, so a real change posted meanwhile is still read;
//   - at most PER_ACCOUNT_PER_SECOND fetches per account in any second, follow-ups included; a
//     post that gets none within ADMIT_WAIT_MS is answered without a fetch and marked `again` likewise.
// A provider that verifies every delivery by asking it (PayPal) spends the same budget per delivery,
// waiting up to ASK_WAIT_MS for it; one that gets none is refused with a 429 and delivered again by
// the provider (receive.ts).

const WINDOW_MS = 2_000;
const PER_ACCOUNT_PER_SECOND = 10;
/** How long a delivery the provider verifies waits for the account's budget before its 429. */
export const ASK_WAIT_MS = 2_000;
/** How long a hint waits for the account's budget before the follow-up is left to read it. */
const ADMIT_WAIT_MS = 1_000;
/** Rows with nothing left to fetch are forgotten this long after their fetch. */
const FORGET_AFTER_MS = 3_600_000;

/** fetch: this delivery makes the fetch; waiting: it is answered without one, and the id is read after the window. */
export type Admission = 'fetch' | 'waiting';

export interface FollowUp {
  providerAccountId: string;
  providerCode: string;
  providerPaymentId: string;
}

export function createFetchGate(pool: Pool) {
  /**
   * Takes one fetch of the account's budget for the current second; false when it is spent, or in
   * the second half of a second: a call granted late in one second and one granted early in the
   * next would otherwise reach the provider within the same second, twice the budget (as in the
   * webhooks throttle).
   */
  async function takeBudget(accountId: string): Promise<boolean> {
    const { rowCount } = await pool.query(
      `INSERT INTO notification_fetch_budgets AS b (provider_account_id, window_second, used)
       SELECT $1, floor(extract(epoch FROM t)), 1 FROM clock_timestamp() AS t
       WHERE extract(epoch FROM t) - floor(extract(epoch FROM t)) < 0.5
       ON CONFLICT (provider_account_id) DO UPDATE
         SET used = CASE WHEN b.window_second = EXCLUDED.window_second THEN b.used + 1 ELSE 1 END,
           window_second = EXCLUDED.window_second
         WHERE b.window_second < EXCLUDED.window_second OR b.used < $2`,
      [accountId, PER_ACCOUNT_PER_SECOND],
    );
    return (rowCount ?? 0) > 0;
  }

  /**
   * Marks the id to be read once more after its window (or at once when it had none); `noWindow`:
   * its window is void too (it was taken for a fetch that was never made).
   */
  async function markAgain(accountId: string, providerCode: string, paymentId: string, noWindow = false): Promise<void> {
    await pool.query(
      `INSERT INTO notification_fetches AS f (provider_account_id, provider_payment_id, provider_code, fetched_at, again)
       VALUES ($1, $2, $3, '-infinity', true)
       ON CONFLICT (provider_account_id, provider_payment_id) DO UPDATE
         SET again = true, fetched_at = CASE WHEN $4 THEN '-infinity' ELSE f.fetched_at END`,
      [accountId, paymentId, providerCode, noWindow],
    );
  }

  /**
   * Takes one provider call of the account's budget, waiting for the next seconds' budgets up to
   * `maxWaitMs`: a real burst is slowed, not refused; false when none came.
   */
  async function spend(accountId: string, maxWaitMs: number): Promise<boolean> {
    const deadline = Date.now() + maxWaitMs;
    for (;;) {
      if (await takeBudget(accountId)) return true;
      const next = (Math.floor(Date.now() / 1000) + 1) * 1000;
      if (next > deadline) return false;
      // Spread over the opening of the next second, so waiting deliveries do not all ask at once.
      await new Promise((resolve) => setTimeout(resolve, next - Date.now() + Math.floor(Math.random() * 50)));
    }
  }

  /** A taken follow-up (its window just restarted) marked to be read again after that window. */
  async function markAgainAfterWindow(f: FollowUp): Promise<void> {
    await pool.query(
      `UPDATE notification_fetches SET again = true WHERE provider_account_id = $1 AND provider_payment_id = $2`,
      [f.providerAccountId, f.providerPaymentId],
    );
  }

  return {
    spend,
    /** Decides whether this delivery fetches the payment now; see the file's comment. */
    async admit(accountId: string, providerCode: string, paymentId: string): Promise<Admission> {
      const recent = await pool.query(
        `UPDATE notification_fetches SET again = true
         WHERE provider_account_id = $1 AND provider_payment_id = $2 AND fetched_at > now() - $3::int * interval '1 millisecond'`,
        [accountId, paymentId, WINDOW_MS],
      );
      if ((recent.rowCount ?? 0) > 0) return 'waiting';
      if (!(await spend(accountId, ADMIT_WAIT_MS))) {
        await markAgain(accountId, providerCode, paymentId);
        return 'waiting';
      }
      // Two posts racing past the first check: one takes the window, the other waits for it.
      const taken = await pool.query(
        `INSERT INTO notification_fetches AS f (provider_account_id, provider_payment_id, provider_code, fetched_at, again)
         VALUES ($1, $2, $3, now(), false)
         ON CONFLICT (provider_account_id, provider_payment_id) DO UPDATE SET fetched_at = now(), again = false
         WHERE f.fetched_at <= now() - $4::int * interval '1 millisecond'`,
        [accountId, paymentId, providerCode, WINDOW_MS],
      );
      if ((taken.rowCount ?? 0) > 0) return 'fetch';
      await markAgain(accountId, providerCode, paymentId);
      return 'waiting';
    },

    /**
     * Takes up to `limit` ids whose window is over and that are marked `again`, each with a fetch of
     * its account's budget (the rest stay marked); forgets rows with nothing left to fetch.
     */
    async takeFollowUps(limit: number): Promise<FollowUp[]> {
      await pool.query(
        `DELETE FROM notification_fetches WHERE NOT again AND fetched_at < now() - $1::int * interval '1 millisecond'`,
        [FORGET_AFTER_MS],
      );
      const { rows } = await pool.query(
        `UPDATE notification_fetches f SET fetched_at = now(), again = false
         FROM (SELECT provider_account_id, provider_payment_id FROM notification_fetches
               WHERE again AND fetched_at <= now() - $1::int * interval '1 millisecond'
               ORDER BY fetched_at LIMIT $2 FOR UPDATE SKIP LOCKED) due
         WHERE f.provider_account_id = due.provider_account_id AND f.provider_payment_id = due.provider_payment_id
         RETURNING f.provider_account_id, f.provider_code, f.provider_payment_id`,
        [WINDOW_MS, limit],
      );
      const taken: FollowUp[] = [];
      for (const r of rows) {
        const f = { providerAccountId: r.provider_account_id, providerCode: r.provider_code, providerPaymentId: r.provider_payment_id };
        // No budget now: given back as it was (no fetch was made, so no window), for the next round.
        if (await takeBudget(f.providerAccountId)) taken.push(f);
        else await markAgain(f.providerAccountId, f.providerCode, f.providerPaymentId, true);
      }
      return taken;
    },

    /** A follow-up whose fetch failed: read again after another window. */
    retryLater: markAgainAfterWindow,
  };
}
