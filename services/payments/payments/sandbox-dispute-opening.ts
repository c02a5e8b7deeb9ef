import type { Statement } from '../../platform/db.js';
import type { Change } from './transitions.js';

/** How long after its success a `dispute` scenario payment is disputed (disputes/sandbox.ts opens it). */
export const SANDBOX_DISPUTE_DELAY_SECONDS = 3;

/**
 * The sandbox's `dispute` scenario: the change that makes such a payment successful also schedules
 * its chargeback, by the database's clock, in the same commit, so a crash cannot lose it. The
 * disputes folder's job opens it when due.
 */
export function sandboxDisputeOpening({ payment, events }: Change): Statement[] {
  if (payment.testScenario !== 'dispute' || payment.mode !== 'test' || !events.includes('payment.successful')) return [];
  return [{
    text: `INSERT INTO sandbox_dispute_openings (payment_id, merchant_id, project_id, mode, due_at)
           VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) ON CONFLICT (payment_id) DO NOTHING`,
    values: [payment.id, payment.merchantId, payment.projectId, payment.mode, SANDBOX_DISPUTE_DELAY_SECONDS],
  }];
}
