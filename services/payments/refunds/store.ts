import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import type { Pool, Queryable } from '../../platform/db.js';
import type { FailureJson } from '../payments/index.js';
import { minorFromColumn } from '../../contract/money.js';
import type { Minor } from '../../contract/money.js';

/** Postgres access to refunds. Every statement filters on merchant, project and mode. */

export interface RefundRecord {
  id: string;
  paymentId: string;
  merchantId: string;
  projectId: string;
  mode: string;
  amount: Minor;
  currency: string;
  /** created, processing, successful or failed. */
  status: string;
  reason: string | null;
  metadata: Record<string, unknown>;
  providerRefundId: string | null;
  failure: FailureJson | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A refund in these states holds its amount against the payment's refundable rest. */
const RESERVING_STATUSES = ['created', 'processing', 'successful'];

const SCOPE = 'merchant_id = $1 AND project_id = $2 AND mode = $3';
const scopeValues = (s: Scope) => [s.merchantId, s.projectId, s.mode];

function toRefund(r: Record<string, any>): RefundRecord {
  return {
    id: r.id,
    paymentId: r.payment_id,
    merchantId: r.merchant_id,
    projectId: r.project_id,
    mode: r.mode,
    amount: minorFromColumn(r.amount),
    currency: r.currency,
    status: r.status,
    reason: r.reason,
    metadata: r.metadata,
    providerRefundId: r.provider_refund_id,
    failure: r.failure,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

export function createRefundStore(pool: Pool) {
  return {
    /**
     * What the payment's refunds hold: settled ones and those still at the provider. Call it with
     * the payment row locked, so no other refund of the payment is reserved in between.
     */
    async reservedAmount(tx: Queryable, scope: Scope, paymentId: string): Promise<bigint> {
      const { rows } = await tx.query(
        `SELECT COALESCE(sum(amount), 0)::bigint AS reserved FROM refunds
         WHERE ${SCOPE} AND payment_id = $4 AND status = ANY($5)`,
        [...scopeValues(scope), paymentId, RESERVING_STATUSES],
      );
      return minorFromColumn(rows[0].reserved);
    },

    async insert(tx: Queryable, r: RefundRecord): Promise<void> {
      await tx.query(
        `INSERT INTO refunds (id, payment_id, merchant_id, project_id, mode, amount, currency, status, reason, metadata,
           provider_refund_id, failure, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [
          r.id, r.paymentId, r.merchantId, r.projectId, r.mode, r.amount, r.currency, r.status, r.reason,
          JSON.stringify(r.metadata), r.providerRefundId, r.failure && JSON.stringify(r.failure), r.createdAt, r.updatedAt,
        ],
      );
    },

    /**
     * Records the provider's outcome of a refund still `processing`; amount, currency and scope
     * never change. False when it was already settled (by a reconciliation on another replica).
     */
    async saveOutcome(tx: Queryable, r: RefundRecord): Promise<boolean> {
      const { rowCount } = await tx.query(
        `UPDATE refunds SET status = $5, provider_refund_id = $6, failure = $7, updated_at = $8
         WHERE ${SCOPE} AND id = $4 AND status = 'processing'`,
        [
          r.merchantId, r.projectId, r.mode, r.id, r.status, r.providerRefundId,
          r.failure && JSON.stringify(r.failure), r.updatedAt,
        ],
      );
      return rowCount === 1;
    },

    /** A refund the provider accepted and later failed (its notification): successful becomes failed, once. */
    async failAfterAcceptance(tx: Queryable, r: RefundRecord): Promise<boolean> {
      const { rowCount } = await tx.query(
        `UPDATE refunds SET status = 'failed', provider_refund_id = $5, failure = $6, updated_at = $7
         WHERE ${SCOPE} AND id = $4 AND status = 'successful'`,
        [r.merchantId, r.projectId, r.mode, r.id, r.providerRefundId, JSON.stringify(r.failure), r.updatedAt],
      );
      return rowCount === 1;
    },

    /** Refunds still at the provider since before `before`, oldest first, across all scopes. */
    async inFlightSince(before: Date, limit: number): Promise<RefundRecord[]> {
      const { rows } = await pool.query(
        `SELECT * FROM refunds WHERE status IN ('created', 'processing') AND updated_at < $1 ORDER BY updated_at, id LIMIT $2`,
        [before, limit],
      );
      return rows.map(toRefund);
    },

    async get(scope: Scope, id: string, db: Queryable = pool): Promise<RefundRecord | undefined> {
      const { rows } = await db.query(`SELECT * FROM refunds WHERE ${SCOPE} AND id = $4`, [...scopeValues(scope), id]);
      return rows.length === 0 ? undefined : toRefund(rows[0]);
    },

    /** Newest first, like every list of the API. */
    async listForPayment(scope: Scope, paymentId: string): Promise<RefundRecord[]> {
      const { rows } = await pool.query(
        `SELECT * FROM refunds WHERE ${SCOPE} AND payment_id = $4 ORDER BY id DESC`,
        [...scopeValues(scope), paymentId],
      );
      return rows.map(toRefund);
    },
  };
}

export type RefundStore = ReturnType<typeof createRefundStore>;
