import { create } from '@bufbuild/protobuf';
import { ScopeSchema, type Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import type { Queryable } from '../../platform/db.js';

// The provider_notifications table (one row per provider event and account: the de-duplication
// key), and how a notification finds the payment or refund it is about: only among those of the
// account it was sent to, so one account's secret can never touch another account's payments.

/** forwarded: a payout's, which the payouts part decides (the gateway hands it on). */
export type Effect = 'applied' | 'confirmed' | 'ignored' | 'unmatched' | 'forwarded';

/** What one notification did, as its row records it. */
export interface Applied {
  effect: Effect;
  paymentId?: string;
  refundId?: string;
  disputeId?: string;
  /** For the operator: why a notification is unmatched (a dispute's provider id and what it named). */
  note?: string;
  /** A late success after failover was recorded: its charge is to be returned (late-charges/). */
  lateCharge?: true;
}

export interface ReceivedNotification {
  providerAccountId: string;
  eventId: string;
  providerCode: string;
  subject: string;
  occurredAt: Date;
  receivedAt: Date;
}

export interface Found {
  scope: Scope;
  paymentId: string;
  /** The attempt (payment subjects) or refund (refund subjects) the notification names. */
  id: string;
}

const scopeOf = (r: Record<string, any>) =>
  create(ScopeSchema, { merchantId: r.merchant_id, projectId: r.project_id, mode: r.mode });

export const notificationQueries = {
  /**
   * Records a notification in the caller's transaction; false when this account already had this
   * event (a replay, or the same delivery racing on another replica, which waits for this row).
   */
  async record(db: Queryable, n: ReceivedNotification): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO provider_notifications (provider_account_id, event_id, provider_code, subject, occurred_at, received_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (provider_account_id, event_id) DO NOTHING`,
      [n.providerAccountId, n.eventId, n.providerCode, n.subject, n.occurredAt, n.receivedAt],
    );
    return rowCount === 1;
  },

  /** What the notification did, in the transaction that did it. */
  async setEffect(db: Queryable, accountId: string, eventId: string, effect: Effect, ids: Omit<Applied, 'effect'> = {}): Promise<void> {
    await db.query(
      `UPDATE provider_notifications SET effect = $3, payment_id = $4, refund_id = $5, dispute_id = $6, note = $7
       WHERE provider_account_id = $1 AND event_id = $2`,
      [accountId, eventId, effect, ids.paymentId ?? null, ids.refundId ?? null, ids.disputeId ?? null, ids.note ?? null],
    );
  },

  /** The attempt at this account by our attempt id, else by the provider's payment id. */
  async attempt(db: Queryable, accountId: string, attemptId: string | null, providerPaymentId: string): Promise<Found | undefined> {
    const { rows } = await db.query(
      `SELECT a.id, a.payment_id, a.merchant_id, a.project_id, a.mode FROM payment_attempts a
       WHERE a.provider_account_id = $1 AND (a.id = $2 OR ($2::text IS NULL AND a.provider_payment_id = $3))
       ORDER BY a.created_at DESC LIMIT 1`,
      [accountId, attemptId, providerPaymentId],
    );
    return rows[0] && { scope: scopeOf(rows[0]), paymentId: rows[0].payment_id, id: rows[0].id };
  },

  /** A refund of a payment taken at this account, by our refund id, else by the provider's refund id. */
  async refund(db: Queryable, accountId: string, refundId: string | null, providerRefundId: string): Promise<Found | undefined> {
    const { rows } = await db.query(
      `SELECT r.id, r.payment_id, r.merchant_id, r.project_id, r.mode FROM refunds r JOIN payments p ON p.id = r.payment_id
       WHERE p.provider_account_id = $1 AND (r.id = $2 OR ($2::text IS NULL AND r.provider_refund_id = $3)) LIMIT 1`,
      [accountId, refundId, providerRefundId],
    );
    return rows[0] && { scope: scopeOf(rows[0]), paymentId: rows[0].payment_id, id: rows[0].id };
  },
};
