import type { Pool, Queryable } from '../../platform/db.js';
import type { CustomerActionRecord } from './model.js';
import { minorFromColumn } from '../../contract/money.js';

// The customer_actions table (asynchronous rails): part of the payments store (payments/store.ts
// spreads these in), kept apart so each file stays one topic.

function toCustomerAction(r: Record<string, any>): CustomerActionRecord {
  return {
    attemptId: r.attempt_id,
    paymentId: r.payment_id,
    merchantId: r.merchant_id,
    projectId: r.project_id,
    mode: r.mode,
    tokenHash: r.token_hash,
    type: r.type,
    feeAmount: minorFromColumn(r.fee_amount),
    expiresAt: r.expires_at,
    createdAt: r.created_at,
    completedAt: r.completed_at,
    outcome: r.outcome,
  };
}

export function customerActionQueries(pool: Pool) {
  return {
    async insertCustomerAction(db: Queryable, a: CustomerActionRecord): Promise<void> {
      await db.query(
        `INSERT INTO customer_actions (attempt_id, payment_id, merchant_id, project_id, mode, token_hash, type,
           fee_amount, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [a.attemptId, a.paymentId, a.merchantId, a.projectId, a.mode, a.tokenHash, a.type, a.feeAmount, a.expiresAt,
          a.createdAt],
      );
    },

    /** The action a sandbox page's token opens, completed or not; across scopes, since the token is the authority. */
    async customerActionByToken(tokenHash: string, db: Queryable = pool): Promise<CustomerActionRecord | undefined> {
      const { rows } = await db.query('SELECT * FROM customer_actions WHERE token_hash = $1', [tokenHash]);
      return rows.length === 0 ? undefined : toCustomerAction(rows[0]);
    },

    /** The payment's open action (at most one: only one attempt at a time waits for the customer). */
    async openCustomerAction(db: Queryable, paymentId: string): Promise<CustomerActionRecord | undefined> {
      const { rows } = await db.query(
        'SELECT * FROM customer_actions WHERE payment_id = $1 AND completed_at IS NULL', [paymentId],
      );
      return rows.length === 0 ? undefined : toCustomerAction(rows[0]);
    },

    /**
     * Open actions on a provider's own page (live: no sandbox token) past their expiry, oldest first,
     * across scopes: reconciliation asks the provider about each before anything ends it, since
     * the customer may have paid there and its notification may never have come.
     */
    async dueProviderActions(now: Date, limit: number): Promise<CustomerActionRecord[]> {
      const { rows } = await pool.query(
        `SELECT * FROM customer_actions WHERE completed_at IS NULL AND token_hash IS NULL AND expires_at <= $1
         ORDER BY expires_at, payment_id LIMIT $2`,
        [now, limit],
      );
      return rows.map(toCustomerAction);
    },

    /** Closes the payment's open action, in the transaction that moves the payment on. */
    async closeCustomerAction(db: Queryable, paymentId: string, outcome: string, at: Date): Promise<void> {
      await db.query(
        'UPDATE customer_actions SET completed_at = $3, outcome = $2 WHERE payment_id = $1 AND completed_at IS NULL',
        [paymentId, outcome, at],
      );
    },
  };
}
