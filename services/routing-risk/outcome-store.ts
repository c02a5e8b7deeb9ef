import type { Pool } from '../platform/db.js';
import type { AttemptSettledEvent } from '../platform/internal-events.js';
import { scopeLearnsSql } from './learning-scopes.js';
import { READ_WINDOW_MINUTES } from './strategies/index.js';

/**
 * Where routing-risk keeps the attempt outcomes it learns from (migrations 0006, 0008, 0010). One
 * statement per batch of events: each outcome row is claimed by its event id (and attempt id), and
 * only the claims that were new are counted into outcome_minutes, so a redelivery, a second replica
 * or a re-published stream counts nothing twice. Minutes are counted only for scopes with a learning
 * rule (learning-scopes.ts), the only ones the planning read looks at.
 */
export interface OutcomeStore {
  /** Per event, in order: true when it was new (claimed), false for a repeat. */
  recordMany(events: AttemptSettledEvent[], now: Date): Promise<boolean[]>;
}

/** The five-minute bucket (stamped with its first minute since the epoch) of a timestamp column, as window-stats.ts's bucketOf. */
const bucketSql = (column: string) => `floor(extract(epoch FROM ${column}) / 300)::bigint * 5`;

/**
 * The minute rows of the new claims: the outcome classified as window-stats.ts's outcomeKind (the
 * routing-history test holds the two together), in five-minute buckets stamped with their first
 * minute, at three segment levels (its country and network; its country, network '*'; both '*';
 * '' is "not known"). Grouped first, since an upsert may not touch one row twice in a statement;
 * in key order, so two replicas' batches lock shared rows in the same order.
 */
const COUNT_MINUTES = `minutes AS (
  SELECT c.project_id, c.mode, c.payment_method, c.currency, c.provider_account_id,
    coalesce(c.country, '') AS country, coalesce(c.card_network, '') AS card_network,
    ${bucketSql('c.settled_at')} AS minute,
    CASE WHEN c.status <> 'failed' THEN 'succeeded'
         WHEN c.failure_category IN ('hard', 'policy') THEN 'hard'
         WHEN c.failure_category = 'soft' THEN 'soft'
         ELSE 'technical' END AS kind
  FROM claimed c
  WHERE ${scopeLearnsSql('c.merchant_id', 'c.project_id', 'c.mode')}
), counted AS (
  INSERT INTO outcome_minutes AS m (project_id, mode, payment_method, currency, country, card_network, minute,
    provider_account_id, succeeded, soft_declined, hard_declined, technical)
  SELECT k.project_id, k.mode, k.payment_method, k.currency, l.country, l.card_network, k.minute, k.provider_account_id,
    count(*) FILTER (WHERE k.kind = 'succeeded'), count(*) FILTER (WHERE k.kind = 'soft'),
    count(*) FILTER (WHERE k.kind = 'hard'), count(*) FILTER (WHERE k.kind = 'technical')
  FROM minutes k
  CROSS JOIN LATERAL (VALUES (k.country, k.card_network), (k.country, '*'), ('*', '*')) AS l (country, card_network)
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
  ON CONFLICT (project_id, mode, payment_method, currency, country, card_network, minute, provider_account_id) DO UPDATE SET
    succeeded = m.succeeded + EXCLUDED.succeeded,
    soft_declined = m.soft_declined + EXCLUDED.soft_declined,
    hard_declined = m.hard_declined + EXCLUDED.hard_declined,
    technical = m.technical + EXCLUDED.technical
)`;

/** How far back a new learning rule's scope is counted from its recorded outcomes: the planning read's window. */
export const BACKFILL_MINUTES = READ_WINDOW_MINUTES;
/** And at most this many of them, newest first, so a busy scope's backfill stays one short statement. */
export const BACKFILL_OUTCOMES = 50_000;

/**
 * A scope that starts learning (a rule given a learning strategy or variant) counts the outcomes
 * already recorded in it ($1–$3 merchant, project, mode), the newest BACKFILL_OUTCOMES of the last
 * BACKFILL_MINUTES, into outcome_minutes as the consumer would have. Only buckets in which nothing
 * of the scope is counted yet are filled, so nothing is counted twice (a scope that learned before,
 * or the bucket under way that the consumer began counting when the rule was committed, keeps its
 * counts). Run after the rule's commit, so COUNT_MINUTES's learning check sees it.
 */
export const BACKFILL_SQL = `WITH claimed AS (
    SELECT o.merchant_id, o.project_id, o.mode, o.provider_account_id, o.payment_method, o.currency, o.country, o.card_network,
      o.status, o.failure_category, o.settled_at
    FROM attempt_outcomes o
    WHERE o.merchant_id = $1 AND o.project_id = $2 AND o.mode = $3
      AND o.settled_at > now() - interval '${BACKFILL_MINUTES} minutes' AND o.settled_at <= now()
      AND NOT EXISTS (SELECT 1 FROM outcome_minutes m WHERE m.project_id = o.project_id AND m.mode = o.mode
        AND m.minute = ${bucketSql('o.settled_at')})
    ORDER BY o.settled_at DESC LIMIT ${BACKFILL_OUTCOMES}
  ), ${COUNT_MINUTES}
  SELECT count(*)::int AS counted FROM claimed`;

export function createOutcomeStore(pool: Pool): OutcomeStore {
  return {
    async recordMany(events, now) {
      const col = <T>(f: (e: AttemptSettledEvent) => T) => events.map(f);
      const { rows } = await pool.query({
        name: 'routing-risk-record-attempt-outcomes',
        text: `WITH input AS (
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
             $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
             $16::text[], $17::int[], $18::timestamptz[], $20::bigint[])
             AS i(event_id, attempt_id, payment_id, merchant_id, project_id, mode, provider_account_id, provider_code,
               payment_method, currency, country, card_network, bin_range, status, outcome, failure_category,
               latency_ms, settled_at, amount)
         ), claimed AS (
           INSERT INTO attempt_outcomes (event_id, attempt_id, payment_id, merchant_id, project_id, mode,
             provider_account_id, provider_code, payment_method, currency, country, card_network, bin_range,
             status, outcome, failure_category, latency_ms, settled_at, received_at, amount)
           SELECT event_id, attempt_id, payment_id, merchant_id, project_id, mode, provider_account_id, provider_code,
             payment_method, currency, country, card_network, bin_range, status, outcome, failure_category,
             latency_ms, settled_at, $19, amount
           FROM input
           ON CONFLICT DO NOTHING
           RETURNING event_id, merchant_id, project_id, mode, provider_account_id, payment_method, currency, country,
             card_network, status, failure_category, settled_at
         ), ${COUNT_MINUTES}
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
          col((e) => (e.data.object.amount === null ? null : String(e.data.object.amount))),
        ],
      });
      const fresh = new Set(rows.map((r) => r.event_id as string));
      return events.map((e) => fresh.has(e.id));
    },
  };
}
