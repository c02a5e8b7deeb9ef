import type { AttemptSettledEvent, Pool } from '../platform/index.js';

/**
 * Where routing-risk keeps the attempt outcomes it learns from (migration 0006). One statement
 * per batch of events: each outcome row is claimed by its event id (and attempt id), and the
 * segments' counts move only for the claims that were new, so a redelivery, a second replica or a
 * re-published stream counts nothing twice. Alone an event is its own batch; under load the
 * consumer's events in flight share one round trip (issue 24's regression, docs/performance.md).
 */
export interface OutcomeStore {
  /** Per event, in order: true when it was new and counted, false for a repeat. */
  recordMany(events: AttemptSettledEvent[], now: Date): Promise<boolean[]>;
}

export function createOutcomeStore(pool: Pool): OutcomeStore {
  return {
    async recordMany(events, now) {
      const col = <T>(f: (e: AttemptSettledEvent) => T) => events.map(f);
      const { rows } = await pool.query({
        name: 'routing-risk-record-attempt-outcomes',
        text: `WITH input AS (
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
             $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
             $16::text[], $17::int[], $18::timestamptz[])
             AS i(event_id, attempt_id, payment_id, merchant_id, project_id, mode, provider_account_id, provider_code,
               payment_method, currency, country, card_network, bin_range, status, outcome, failure_category,
               latency_ms, settled_at)
         ), claimed AS (
           INSERT INTO attempt_outcomes (event_id, attempt_id, payment_id, merchant_id, project_id, mode,
             provider_account_id, provider_code, payment_method, currency, country, card_network, bin_range,
             status, outcome, failure_category, latency_ms, settled_at, received_at)
           SELECT event_id, attempt_id, payment_id, merchant_id, project_id, mode, provider_account_id, provider_code,
             payment_method, currency, country, card_network, bin_range, status, outcome, failure_category,
             latency_ms, settled_at, $19
           FROM input
           ON CONFLICT DO NOTHING
           RETURNING event_id, provider_account_id, mode, payment_method, currency, country, card_network, status,
             failure_category, latency_ms, settled_at
         ), counted AS (
           -- One row per segment: an upsert may not touch the same row twice in one statement.
           INSERT INTO attempt_outcome_counts AS c (provider_account_id, mode, payment_method, currency, country,
             card_network, succeeded, failed, failed_by_provider, latency_ms_sum, latency_count, last_settled_at)
           SELECT provider_account_id, mode, payment_method, currency, coalesce(country, ''), coalesce(card_network, ''),
             count(*) FILTER (WHERE status <> 'failed'), count(*) FILTER (WHERE status = 'failed'),
             count(*) FILTER (WHERE status = 'failed' AND failure_category = 'technical'),
             coalesce(sum(latency_ms), 0), count(latency_ms), max(settled_at)
           FROM claimed
           GROUP BY provider_account_id, mode, payment_method, currency, coalesce(country, ''), coalesce(card_network, '')
           ON CONFLICT (provider_account_id, mode, payment_method, currency, country, card_network) DO UPDATE SET
             succeeded = c.succeeded + EXCLUDED.succeeded,
             failed = c.failed + EXCLUDED.failed,
             failed_by_provider = c.failed_by_provider + EXCLUDED.failed_by_provider,
             latency_ms_sum = c.latency_ms_sum + EXCLUDED.latency_ms_sum,
             latency_count = c.latency_count + EXCLUDED.latency_count,
             last_settled_at = greatest(c.last_settled_at, EXCLUDED.last_settled_at)
         )
         SELECT event_id FROM claimed`,
        values: [
          col((e) => e.id), col((e) => e.data.object.id), col((e) => e.data.object.payment_id), col((e) => e.merchant_id),
          col((e) => e.project_id), col((e) => e.mode), col((e) => e.data.object.provider_account_id),
          col((e) => e.data.object.provider_code ?? ''), col((e) => e.data.object.payment_method),
          col((e) => e.data.object.currency), col((e) => e.data.object.country ?? null),
          col((e) => e.data.object.card_network ?? null), col((e) => e.data.object.bin_range ?? null),
          col((e) => e.data.object.status), col((e) => e.data.object.outcome),
          col((e) => e.data.object.failure_category ?? null),
          col((e) => (e.data.object.latency_ms === null || e.data.object.latency_ms === undefined ? null : Math.round(e.data.object.latency_ms))),
          col((e) => e.data.object.settled_at ?? e.created_at), now,
        ],
      });
      const fresh = new Set(rows.map((r) => r.event_id as string));
      return events.map((e) => fresh.has(e.id));
    },
  };
}
