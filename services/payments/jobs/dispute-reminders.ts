import { create } from '@bufbuild/protobuf';
import { ScopeSchema, type Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import { disputeJson, evidenceDaysLeft, minorFromColumn, REMINDER_DAYS } from '../../contract/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Pool, Queryable } from '../../platform/db.js';
import { newId } from '../../platform/ids.js';
import type { Logger } from '../../platform/logger.js';
import { enqueueEvent } from '../../platform/outbox.js';
import { disputeToProto, type DisputeStore } from '../disputes/index.js';
import type { PaymentsStore } from '../payments/index.js';
import { createSweep } from './sweep.js';

/**
 * Evidence-deadline reminders (docs/disputes.md, "Reminder"). A dispute that needs a response and
 * whose deadline is REMINDER_DAYS days away or less, but not past, is reminded at most once a day:
 * the claiming statement compares last_reminded_at with the database's clock and sets it, so
 * replicas sweeping at once never claim one dispute twice in a day. In the claiming transaction it
 * emits `dispute.updated` (the dispute as the API shows it, plus `evidence_days_left`) and leaves a
 * reminder row for the gateway, which knows the merchant's owners and mails them
 * (DisputeRemindersService: take for a lease, acknowledge when mailed).
 */

const REMINDER_LEASE_SECONDS = 600;
const LEASE = `make_interval(secs => ${REMINDER_LEASE_SECONDS})`;

export interface DisputeReminderRecord {
  id: string;
  disputeId: string;
  scope: Scope;
  paymentId: string;
  amount: bigint;
  currency: string;
  reason: string;
  evidenceDueBy: Date;
  evidenceDaysLeft: number;
}

export interface DisputeRemindersDeps {
  pool: Pool;
  store: PaymentsStore;
  disputes: DisputeStore;
  clock: Clock;
  relay: { kick(): void };
  logger: Logger;
  intervalMs: number;
}

const scopeOfRow = (r: Record<string, any>) => create(ScopeSchema, { merchantId: r.merchant_id, projectId: r.project_id, mode: r.mode });

export function createDisputeReminders(deps: DisputeRemindersDeps) {
  /** The dispute's reminder: its event and its row for the gateway, in the claiming transaction. */
  async function remind(tx: Queryable, scope: Scope, disputeId: string, at: Date): Promise<void> {
    const d = (await deps.disputes.get(scope, disputeId, tx))!;
    const daysLeft = evidenceDaysLeft(d.evidenceDueBy!, at);
    const documents = await deps.disputes.documents(scope, d.id, tx);
    await enqueueEvent(tx, {
      id: newId('evt', at), type: 'dispute.updated', mode: d.mode, merchant_id: d.merchantId, project_id: d.projectId,
      created_at: at.toISOString(),
      data: { object: { ...disputeJson(disputeToProto(d, documents)), evidence_days_left: daysLeft } },
    });
    await tx.query(
      `INSERT INTO dispute_reminders (id, dispute_id, merchant_id, project_id, mode, payment_id, amount, currency, reason,
         evidence_due_by, evidence_days_left, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [newId('dpr', at), d.id, d.merchantId, d.projectId, d.mode, d.paymentId, d.amount, d.currency, d.reason, d.evidenceDueBy,
        daysLeft, at],
    );
  }

  const sweep = createSweep({ ...deps, name: 'dispute reminders' }, async (tx, _now, limit) => {
    const { rows } = await tx.query(
      `UPDATE disputes SET last_reminded_at = now()
       WHERE id IN (
         SELECT id FROM disputes
         WHERE status = 'needs_response' AND evidence_due_by > now() AND evidence_due_by <= now() + make_interval(days => $1)
           AND (last_reminded_at IS NULL OR last_reminded_at <= now() - interval '1 day')
         ORDER BY evidence_due_by LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id, merchant_id, project_id, mode, now() AS db_now`,
      [REMINDER_DAYS, limit],
    );
    for (const r of rows) await remind(tx, scopeOfRow(r), r.id, new Date(r.db_now));
    return rows.length;
  });

  return {
    /** Reminds every dispute due a reminder now; returns how many. Safe on many replicas at once. */
    runDue: () => sweep.sweep(deps.clock.now()),
    start: () => sweep.start(() => deps.clock.now()),
    stop: () => sweep.stop(),

    /** Up to `limit` reminders not mailed yet and not leased, each leased to this caller. */
    async take(limit: number): Promise<DisputeReminderRecord[]> {
      const { rows } = await deps.pool.query(
        `UPDATE dispute_reminders SET taken_until = now() + ${LEASE}
         WHERE id IN (SELECT id FROM dispute_reminders WHERE taken_until IS NULL OR taken_until <= now()
                      ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [limit],
      );
      return rows.map((r) => ({
        id: r.id, disputeId: r.dispute_id, scope: scopeOfRow(r), paymentId: r.payment_id, amount: minorFromColumn(r.amount),
        currency: r.currency, reason: r.reason, evidenceDueBy: new Date(r.evidence_due_by), evidenceDaysLeft: r.evidence_days_left,
      }));
    },

    /** Mailed: the reminders are done. */
    async acknowledge(ids: string[]): Promise<void> {
      if (ids.length > 0) await deps.pool.query('DELETE FROM dispute_reminders WHERE id = ANY($1)', [ids]);
    },
  };
}

export type DisputeReminders = ReturnType<typeof createDisputeReminders>;
