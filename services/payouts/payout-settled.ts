import type { PayoutSettled } from '../platform/internal-events.js';
import type { PayoutRecord } from './model.js';

/**
 * A payout's internal payout.settled (services/platform/internal-events/payout-settled.ts), read
 * from the record its public payout.successful or payout.failed serialises in the same transaction.
 */
export function payoutSettled(p: PayoutRecord, event: 'payout.successful' | 'payout.failed', at: Date): PayoutSettled {
  const routed = p.providerId !== null;
  return {
    version: 1,
    id: p.id,
    status: event === 'payout.successful' ? 'successful' : 'failed',
    amount: p.amount,
    currency: p.currency,
    fee_amount: p.feeAmount,
    provider_id: p.providerId,
    provider_code: routed ? p.providerCode ?? '' : null,
    provider_name: routed ? p.providerName ?? '' : null,
    provider_account_id: p.providerAccountId,
    provider_payout_id: p.providerPayoutId,
    destination_country: p.destination.country,
    failure_code: p.failure?.code ?? null,
    failure_category: p.failure?.category ?? null,
    settled_at: at.toISOString(),
  };
}
