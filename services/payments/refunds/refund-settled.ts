import { refundSettledObject, type InternalObject } from '../../platform/internal-events.js';
import type { RefundRecord } from './store.js';

/**
 * A settled refund's internal event (services/platform/internal-events/refund-settled.ts), for the
 * change that emits its public refund.successful or refund.failed. `afterAcceptance` is the
 * refund's own fact (failAfterAcceptance), not read back from its failure code.
 */
export function refundSettledEvent(refund: RefundRecord, afterAcceptance: boolean, at: Date): InternalObject {
  const status = refund.status === 'successful' ? 'successful' : 'failed';
  return refundSettledObject({
    version: 1,
    id: refund.id,
    payment_id: refund.paymentId,
    status,
    after_acceptance: status === 'failed' && afterAcceptance,
    amount: refund.amount,
    currency: refund.currency,
    provider_refund_id: refund.providerRefundId,
    failure_code: refund.failure?.code ?? null,
    failure_category: refund.failure?.category ?? null,
    settled_at: at.toISOString(),
  });
}
