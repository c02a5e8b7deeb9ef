import type { Pool } from '../../services/platform/db.js';
import type { AuditEntryView, OperatorMerchantView, VerificationSubmissionView } from '../../services/contract/dashboard-views.js';
import { verificationStatus } from '../../services/contract/verification-status.js';

/**
 * What the dashboard's operator console reads: merchants with where their verification stands, the
 * submissions waiting for a decision, and the audit log with who and from which address. Changes go
 * through the management API's handlers (keys.ts, verification.ts), audited there.
 */

const iso = (v: unknown) => new Date(v as string).toISOString();

// Cursors are the last row's id: ids begin with their time (newId), so byte order ("C") is time order.
export function createOperatorConsoleStore(pool: Pool) {
  return {
    async operatorMerchants(limit: number, before?: string): Promise<OperatorMerchantView[]> {
      const { rows } = await pool.query(
        `SELECT m.id, m.name, m.created_at, m.verification_status AS merchant_flag, v.status AS submission_status,
           (SELECT u.email FROM memberships mb JOIN users u ON u.id = mb.user_id
            WHERE mb.merchant_id = m.id AND mb.role = 'owner' ORDER BY mb.created_at LIMIT 1) AS owner_email
         FROM merchants m
         LEFT JOIN LATERAL (SELECT status FROM verification_submissions s WHERE s.merchant_id = m.id
                            ORDER BY s.created_at DESC, s.id DESC LIMIT 1) v ON true
         WHERE $1::text IS NULL OR m.id < $1 COLLATE "C" ORDER BY m.id COLLATE "C" DESC LIMIT $2`,
        [before ?? null, limit],
      );
      return rows.map(({ merchant_flag, submission_status, ...r }) => ({
        ...r, verification_status: verificationStatus(merchant_flag, submission_status), created_at: iso(r.created_at),
      }) as OperatorMerchantView);
    },

    /** Submissions in a status (pending: the queue), oldest first so the longest waiting comes first. */
    async verificationQueue(status: string, limit: number): Promise<VerificationSubmissionView[]> {
      const { rows } = await pool.query(
        `SELECT s.*, m.name AS merchant_name, u.email AS submitted_by_email FROM verification_submissions s
         JOIN merchants m ON m.id = s.merchant_id JOIN users u ON u.id = s.submitted_by
         WHERE s.status = $1 ORDER BY s.created_at, s.id LIMIT $2`,
        [status, limit],
      );
      return rows.map((r) => ({
        id: r.id, object: 'verification' as const, merchant_id: r.merchant_id, merchant_name: r.merchant_name,
        company_name: r.company_name, registration_number: r.registration_number, country: r.country,
        documents: r.documents as string[], status: r.status, submitted_by: r.submitted_by_email,
        submitted_at: iso(r.created_at), decided_at: r.decided_at ? iso(r.decided_at) : null,
        rejection_reason: r.decision_reason ?? null,
      }));
    },

    async auditLog(filter: { merchantId?: string; action?: string; before?: string }, limit: number): Promise<AuditEntryView[]> {
      const { rows } = await pool.query(
        `SELECT a.*, u.email AS actor_email FROM audit_log a
         LEFT JOIN users u ON a.actor = 'user:' || u.id
         WHERE ($1::text IS NULL OR a.merchant_id = $1) AND ($2::text IS NULL OR a.action = $2)
           AND ($3::text IS NULL OR a.id < $3 COLLATE "C")
         ORDER BY a.id COLLATE "C" DESC LIMIT $4`,
        [filter.merchantId ?? null, filter.action ?? null, filter.before ?? null, limit],
      );
      return rows.map((r) => ({
        id: r.id, actor: r.actor, actor_email: r.actor_email, action: r.action, merchant_id: r.merchant_id,
        project_id: r.project_id, target_id: r.target_id, data: r.data, client_address: r.client_address,
        created_at: iso(r.created_at),
      }));
    },
  };
}
