// The late_charges table (migration 0026): one row per attempt whose provider reported a success
// after the attempt was recorded failed, and where returning that charge stands.
import type { Pool, Queryable, Statement } from '../../platform/db.js';
import type { LateCharge, LateChargeStatus } from './late-charge.js';
import { lateChargedStatements } from './moved.js';

const COLUMNS = `attempt_id, payment_id, merchant_id, project_id, mode, provider_code, provider_account_id,
  provider_payment_id, amount, currency, held, status`;

const fromRow = (r: Record<string, any>): LateCharge => ({
  attemptId: r.attempt_id, paymentId: r.payment_id, merchantId: r.merchant_id, projectId: r.project_id, mode: r.mode,
  providerCode: r.provider_code, providerAccountId: r.provider_account_id, providerPaymentId: r.provider_payment_id,
  amount: BigInt(r.amount), currency: r.currency, held: r.held, status: r.status,
});

/** The row of a charge to return, once per attempt (a second insert of the attempt changes nothing). */
function insertLateCharge(c: LateCharge, at: Date): Statement {
  return {
    text: `INSERT INTO late_charges (${COLUMNS}, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)
           ON CONFLICT (attempt_id) DO NOTHING`,
    values: [c.attemptId, c.paymentId, c.merchantId, c.projectId, c.mode, c.providerCode, c.providerAccountId,
      c.providerPaymentId, c.amount, c.currency, c.held, c.status, at],
  };
}

/**
 * A charge recorded in a change's own statements (the sandbox's late_success, written once in the
 * deciding commit): its row and its `charged` event for the ledger.
 */
export function lateChargeStatements(c: LateCharge, at: Date): Statement[] {
  return [insertLateCharge(c, at), ...lateChargedStatements(c, at)];
}

export function createLateChargeStore(pool: Pool) {
  return {
    /** Records the charge to return and its `charged` event; false when this attempt's was recorded before (a replayed or second notification). */
    async insert(tx: Queryable, c: LateCharge, at: Date): Promise<boolean> {
      const { text, values } = insertLateCharge(c, at);
      const { rowCount } = await tx.query(text, values);
      if (rowCount !== 1) return false;
      // Told to the ledger in the same transaction, once: only the first record of the charge gets here.
      for (const e of lateChargedStatements(c, at)) await tx.query(e.text, e.values);
      return true;
    },

    /** Charges still to return, oldest first. */
    async returning(limit: number): Promise<LateCharge[]> {
      const { rows } = await pool.query(
        `SELECT ${COLUMNS} FROM late_charges WHERE status = 'returning' ORDER BY created_at LIMIT $1`, [limit],
      );
      return rows.map(fromRow);
    },

    /** Settles a return once: false when another round settled it first. */
    async settle(tx: Queryable, attemptId: string, status: Exclude<LateChargeStatus, 'returning'>, message: string | null, at: Date): Promise<boolean> {
      const { rowCount } = await tx.query(
        `UPDATE late_charges SET status = $2, provider_message = $3, updated_at = $4 WHERE attempt_id = $1 AND status = 'returning'`,
        [attemptId, status, message, at],
      );
      return rowCount === 1;
    },
  };
}
