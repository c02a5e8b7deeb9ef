import type { AttemptSettledEvent, Pool } from '../platform/index.js';

/**
 * Where routing-risk keeps the attempt outcomes it learns from (migration 0006). One statement
 * per event: the outcome row is claimed by its event id (and attempt id), and the segment's counts
 * move only if the claim was new, so a redelivery, a second replica or a re-published stream
 * counts nothing twice.
 */
export interface OutcomeStore {
  /** True when the event was new and counted, false for a repeat. */
  record(event: AttemptSettledEvent, now: Date): Promise<boolean>;
}

export function createOutcomeStore(pool: Pool): OutcomeStore {
  return {
    async record(event, now) {
      const o = event.data.object;
      const succeeded = o.status === 'failed' ? 0 : 1;
      const failed = 1 - succeeded;
      const byProvider = failed && o.failure_category === 'technical' ? 1 : 0;
      const { rowCount } = await pool.query({
        name: 'routing-risk-record-attempt-outcome',
        text: `WITH claimed AS (
           INSERT INTO attempt_outcomes (event_id, attempt_id, payment_id, merchant_id, project_id, mode,
             provider_account_id, provider_code, payment_method, currency, country, card_network, bin_range,
             status, outcome, failure_category, latency_ms, settled_at, received_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
           ON CONFLICT DO NOTHING
           RETURNING provider_account_id, mode, payment_method, currency, country, card_network, latency_ms, settled_at
         )
         INSERT INTO attempt_outcome_counts AS c (provider_account_id, mode, payment_method, currency, country,
           card_network, succeeded, failed, failed_by_provider, latency_ms_sum, latency_count, last_settled_at)
         SELECT provider_account_id, mode, payment_method, currency, coalesce(country, ''), coalesce(card_network, ''),
           $20, $21, $22, coalesce(latency_ms, 0), CASE WHEN latency_ms IS NULL THEN 0 ELSE 1 END, settled_at
         FROM claimed
         ON CONFLICT (provider_account_id, mode, payment_method, currency, country, card_network) DO UPDATE SET
           succeeded = c.succeeded + EXCLUDED.succeeded,
           failed = c.failed + EXCLUDED.failed,
           failed_by_provider = c.failed_by_provider + EXCLUDED.failed_by_provider,
           latency_ms_sum = c.latency_ms_sum + EXCLUDED.latency_ms_sum,
           latency_count = c.latency_count + EXCLUDED.latency_count,
           last_settled_at = greatest(c.last_settled_at, EXCLUDED.last_settled_at)`,
        values: [
          event.id, o.id, o.payment_id, event.merchant_id, event.project_id, event.mode, o.provider_account_id,
          o.provider_code ?? '', o.payment_method, o.currency, o.country ?? null, o.card_network ?? null,
          o.bin_range ?? null, o.status, o.outcome, o.failure_category ?? null,
          o.latency_ms === null || o.latency_ms === undefined ? null : Math.round(o.latency_ms),
          o.settled_at ?? event.created_at, now, succeeded, failed, byProvider,
        ],
      });
      return (rowCount ?? 0) > 0;
    },
  };
}
