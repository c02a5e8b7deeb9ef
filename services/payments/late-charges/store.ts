// The late_charges table (migration 0026): one row per attempt whose provider reported a success
// after the attempt was recorded failed, and where returning that charge stands.
import type { Pool, Queryable } from '../../platform/db.js';
import { row, writeRows, type RowWrite, type TableShape } from '../../platform/row-writes.js';
import type { LateCharge, LateChargeStatus } from './late-charge.js';
import { lateChargedRows } from './moved.js';
import { minorFromColumn } from '../../contract/money.js';

const COLUMNS = `attempt_id, payment_id, merchant_id, project_id, mode, provider_code, provider_account_id,
  provider_payment_id, amount, currency, held, status`;

const fromRow = (r: Record<string, any>): LateCharge => ({
  attemptId: r.attempt_id, paymentId: r.payment_id, merchantId: r.merchant_id, projectId: r.project_id, mode: r.mode,
  providerCode: r.provider_code, providerAccountId: r.provider_account_id, providerPaymentId: r.provider_payment_id,
  amount: minorFromColumn(r.amount), currency: r.currency, held: r.held, status: r.status,
});

const LATE_CHARGES: TableShape = {
  table: 'late_charges',
  columns: [
    ...['attempt_id', 'payment_id', 'merchant_id', 'project_id', 'mode', 'provider_code', 'provider_account_id', 'provider_payment_id']
      .map((name) => ({ name, type: 'text' })),
    { name: 'amount', type: 'bigint' }, { name: 'currency', type: 'text' }, { name: 'held', type: 'boolean' },
    { name: 'status', type: 'text' }, { name: 'created_at', type: 'timestamptz' }, { name: 'updated_at', type: 'timestamptz' },
  ],
  key: ['attempt_id'],
  // Once per attempt: a second record of the attempt's charge changes nothing.
  write: 'insertOrKeep',
};

/** The row of a charge to return. */
function lateChargeRow(c: LateCharge, at: Date): RowWrite {
  return row(LATE_CHARGES, [c.attemptId, c.paymentId, c.merchantId, c.projectId, c.mode, c.providerCode, c.providerAccountId,
    c.providerPaymentId, c.amount, c.currency, c.held, c.status, at, at]);
}

/**
 * A charge recorded in a change's own rows (the sandbox's late_success, written once in the
 * deciding commit): its row and its `charged` event for the ledger.
 */
export function lateChargeRows(c: LateCharge, at: Date): RowWrite[] {
  return [lateChargeRow(c, at), ...lateChargedRows(c, at)];
}

export function createLateChargeStore(pool: Pool) {
  return {
    /** Records the charge to return and its `charged` event; false when this attempt's was recorded before (a replayed or second notification). */
    async insert(tx: Queryable, c: LateCharge, at: Date): Promise<boolean> {
      const { rowCount } = await writeRows(tx, [lateChargeRow(c, at)]);
      if (rowCount !== 1) return false;
      // Told to the ledger in the same transaction, once: only the first record of the charge gets here.
      const told = lateChargedRows(c, at);
      if (told.length > 0) await writeRows(tx, told);
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
