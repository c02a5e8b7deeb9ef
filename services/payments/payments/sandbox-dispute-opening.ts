import { row, type RowWrite, type TableShape } from '../../platform/row-writes.js';
import type { Change } from './transitions.js';

/** How long after its success a `dispute` scenario payment is disputed (disputes/sandbox.ts opens it). */
export const SANDBOX_DISPUTE_DELAY_SECONDS = 3;

const OPENINGS: TableShape = {
  table: 'sandbox_dispute_openings',
  columns: [
    { name: 'payment_id', type: 'text' }, { name: 'merchant_id', type: 'text' }, { name: 'project_id', type: 'text' },
    { name: 'mode', type: 'text' }, { name: 'due_at', type: 'double precision', secondsAfterNow: true },
  ],
  key: ['payment_id'],
  write: 'insertOrKeep',
};

/**
 * The sandbox's `dispute` scenario: the change that makes such a payment successful also schedules
 * its chargeback, by the database's clock, in the same commit, so a crash cannot lose it. The
 * disputes folder's job opens it when due.
 */
export function sandboxDisputeOpening({ payment, events }: Change): RowWrite[] {
  if (payment.testScenario !== 'dispute' || payment.mode !== 'test' || !events.includes('payment.successful')) return [];
  return [row(OPENINGS, [payment.id, payment.merchantId, payment.projectId, payment.mode, SANDBOX_DISPUTE_DELAY_SECONDS])];
}
