import { create } from '@bufbuild/protobuf';
import { ScopeSchema } from '../../../proto/gen/svc/common/v1/common_pb.js';
import { DEMO_PROVIDERS, minorFromColumn } from '../../contract/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Logger } from '../../platform/logger.js';
import { createSweep } from '../jobs/sweep.js';
import type { PaymentsStore } from '../payments/index.js';
import type { ApplyProviderView } from './apply.js';
import { demoDisputeFee } from './fees.js';
import type { DisputeEvidence } from './model.js';
import type { DisputeActionRegistry, DisputeProviderActions } from './provider-actions.js';

/**
 * The sandbox's demo providers' disputes (docs/disputes.md, "Sandbox"): the chargeback a `dispute`
 * scenario payment gets a few seconds after its success, and the decision on submitted evidence a
 * few seconds after it is submitted. Both are due-at times compared with the database's clock, and
 * applied through applyProviderView like any provider's view, so a redelivery changes nothing.
 */

/** How long the demo provider takes to decide submitted evidence. */
export const SANDBOX_DECIDE_SECONDS = 3;
const EVIDENCE_DAYS = 7;
const DAY_MS = 24 * 3600 * 1000;

/** Evidence that wins at the demo provider: a tracking number, or text that mentions one. */
export const winsAtDemo = (e: DisputeEvidence): boolean =>
  Boolean(e.shipping_tracking_number?.trim()) || /tracking/i.test(e.uncategorized_text ?? '');

const DEMO_ACTIONS: DisputeProviderActions = {
  accept: async () => ({ status: 'accepted' }),
  // Decided SANDBOX_DECIDE_SECONDS later (disputes.ts schedules it, the decisions sweep below applies it).
  submitEvidence: async () => ({ status: 'under_review' }),
};

/** The demo providers' actions; a licensed provider's come from `licensed` (none yet: the API says unsupported). */
export function disputeActions(licensed: Record<string, DisputeProviderActions> = {}): DisputeActionRegistry {
  return (code) => ((DEMO_PROVIDERS as readonly string[]).includes(code) ? DEMO_ACTIONS : licensed[code]);
}

export const isDemoProvider = (code: string) => (DEMO_PROVIDERS as readonly string[]).includes(code);

export interface SandboxDisputeDeps {
  store: PaymentsStore;
  apply: ApplyProviderView;
  clock: Clock;
  relay: { kick(): void };
  logger: Logger;
  intervalMs: number;
}

export function createSandboxDisputes(deps: SandboxDisputeDeps) {
  // Openings: claimed (deleted) due rows; the chargeback is applied in the same transaction.
  const openings = createSweep({ ...deps, name: 'sandbox dispute openings' }, async (tx, _now, limit) => {
    const { rows } = await tx.query(
      `DELETE FROM sandbox_dispute_openings WHERE payment_id IN (
         SELECT payment_id FROM sandbox_dispute_openings WHERE due_at <= now() ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING payment_id, merchant_id, project_id, mode, now() AS db_now`,
      [limit],
    );
    for (const r of rows) {
      const scope = create(ScopeSchema, { merchantId: r.merchant_id, projectId: r.project_id, mode: r.mode });
      const payment = await deps.store.get(scope, r.payment_id);
      if (!payment?.providerCode || !isDemoProvider(payment.providerCode) || payment.capturedAmount <= 0n) continue;
      const at = new Date(r.db_now);
      await deps.apply(scope, {
        providerCode: payment.providerCode, providerDisputeId: `${payment.providerCode}_dispute_${payment.id}`, paymentId: payment.id,
        stage: 'chargeback', status: 'needs_response', reason: 'fraudulent', providerReason: '10.4', amount: payment.capturedAmount,
        currency: payment.currency, feeAmount: demoDisputeFee(payment.currency), fundsWithdrawn: true,
        evidenceDueBy: new Date(at.getTime() + EVIDENCE_DAYS * DAY_MS), occurredAt: at,
      }, { tx });
    }
    return rows.length;
  });

  // Decisions: disputes under review whose decision is due; each applied in its own transaction
  // (apply locks the payment before the dispute), and a replica deciding the same one again is ignored.
  const decisions = createSweep({ ...deps, name: 'sandbox dispute decisions' }, async (tx, _now, limit) => {
    const { rows } = await tx.query(
      `SELECT *, now() AS db_now FROM disputes WHERE decide_at <= now() AND status = 'under_review' ORDER BY decide_at LIMIT $1`,
      [limit],
    );
    for (const r of rows) {
      const scope = create(ScopeSchema, { merchantId: r.merchant_id, projectId: r.project_id, mode: r.mode });
      const won = winsAtDemo(r.evidence ?? {});
      await deps.apply(scope, {
        providerCode: r.provider_code, providerDisputeId: r.provider_dispute_id, paymentId: r.payment_id, stage: r.stage,
        status: won ? 'won' : 'lost', reason: r.reason, amount: minorFromColumn(r.amount), currency: r.currency,
        fundsWithdrawn: won ? false : r.funds_withdrawn, occurredAt: new Date(r.db_now),
      });
    }
    return rows.length;
  });

  return {
    /** Opens the chargebacks and decides the evidence due now; returns how many were handled. */
    async runDue(): Promise<number> {
      return (await openings.sweep(deps.clock.now())) + (await decisions.sweep(deps.clock.now()));
    },
    start(): void {
      openings.start(() => deps.clock.now());
      decisions.start(() => deps.clock.now());
    },
    stop: async () => {
      await Promise.all([openings.stop(), decisions.stop()]);
    },
  };
}
