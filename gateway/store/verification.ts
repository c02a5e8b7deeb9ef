import { withTransaction, type Pool } from '../../services/platform/db.js';
import { newId } from '../../services/platform/ids.js';
import { audit } from './keys.js';
import { userActor } from './users.js';

/**
 * Business verification as submitted from the dashboard. Approval stays the operator's
 * (verifyMerchant in keys.ts sets merchants.verification_status, which gates live keys).
 */

export interface VerificationDetails {
  company_name: string;
  registration_number: string;
  country: string;
  documents: string[];
}

export interface VerificationView extends VerificationDetails {
  id: string;
  object: 'verification';
  status: 'pending' | 'approved' | 'rejected';
  submitted_at: string;
  decided_at: string | null;
  /** Why an operator rejected it; null otherwise. */
  rejection_reason: string | null;
}

function view(r: Record<string, any>, merchantStatus: string): VerificationView {
  return {
    id: r.id, object: 'verification', company_name: r.company_name, registration_number: r.registration_number,
    country: r.country, documents: r.documents,
    // The merchant's approval is what counts, whichever way it was given (the CLI approves merchants too).
    status: merchantStatus === 'approved' ? 'approved' : r.status,
    submitted_at: new Date(r.created_at).toISOString(), decided_at: r.decided_at ? new Date(r.decided_at).toISOString() : null,
    rejection_reason: r.status === 'rejected' ? r.decision_reason ?? null : null,
  };
}

export function createVerificationStore(pool: Pool) {
  return {
    /** Records a submission; 'already_approved' when there is nothing left to verify. */
    async submitVerification(merchantId: string, userId: string, details: VerificationDetails, at: Date) {
      return withTransaction(pool, async (tx) => {
        const merchant = await tx.query('SELECT verification_status FROM merchants WHERE id = $1 FOR UPDATE', [merchantId]);
        if (merchant.rows[0]?.verification_status === 'approved') return { refused: 'already_approved' as const };
        const { rows } = await tx.query(
          `INSERT INTO verification_submissions
             (id, merchant_id, company_name, registration_number, country, documents, submitted_by, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
          [newId('vrf', at), merchantId, details.company_name, details.registration_number, details.country,
            details.documents, userId, at],
        );
        await audit(tx, userActor(userId), 'merchant.verification_submitted', at, { merchantId, targetId: rows[0].id });
        return { verification: view(rows[0], 'pending') };
      });
    },

    /**
     * An operator's rejection of the merchant's pending submission, with the reason the merchant
     * reads; the merchant may submit again. Refused when there is nothing pending to decide (an
     * approved merchant stays approved: live keys may exist).
     */
    async rejectVerification(merchantId: string, reason: string, actor: string, at: Date) {
      return withTransaction(pool, async (tx) => {
        const merchant = await tx.query('SELECT verification_status FROM merchants WHERE id = $1 FOR UPDATE', [merchantId]);
        if (merchant.rowCount === 0) return { refused: 'merchant_not_found' as const };
        if (merchant.rows[0].verification_status === 'approved') return { refused: 'already_approved' as const };
        const { rows } = await tx.query(
          `UPDATE verification_submissions SET status = 'rejected', decided_at = $2, decision_reason = $3
           WHERE id = (SELECT id FROM verification_submissions WHERE merchant_id = $1
                       ORDER BY created_at DESC, id DESC LIMIT 1) AND status = 'pending'
           RETURNING *`,
          [merchantId, at, reason],
        );
        if (rows.length === 0) return { refused: 'nothing_pending' as const };
        await audit(tx, actor, 'merchant.verification_rejected', at, { merchantId, targetId: rows[0].id, data: { reason } });
        return { verification: view(rows[0], 'pending') };
      });
    },

    /** The latest submission, or undefined when none was made. */
    async latestVerification(merchantId: string): Promise<VerificationView | undefined> {
      const { rows } = await pool.query(
        `SELECT v.*, m.verification_status AS merchant_status FROM verification_submissions v
         JOIN merchants m ON m.id = v.merchant_id WHERE v.merchant_id = $1 ORDER BY v.created_at DESC, v.id DESC LIMIT 1`,
        [merchantId],
      );
      return rows[0] && view(rows[0], rows[0].merchant_status);
    },
  };
}

export type VerificationStore = ReturnType<typeof createVerificationStore>;
