import { ASYNC_COMMIT_CTE, prepared, type Queryable } from './db.js';

// The outbox relay's SQL: which rows a batch claims, and what it records of their publishing.
// Each is one statement on the pool, so no transaction stays open while the bus is awaited.
// Both commit without waiting for the WAL flush: a lease or a mark lost in a database crash only
// makes a relay publish those events again, which the bus's msgId dedupe and idempotent consumers absorb.
// docs/decisions/2026-11-23-no-event-blocks-another-event-durability.md, "No event blocks another" and "The relay claims with a lease", explains the rules.

export interface ClaimedRow {
  event_id: string;
  aggregate_id: string;
  type: string;
  payload: unknown;
  attempts: number;
  /** The trace context it was written in (services/platform/tracing.ts), sent as a message header. */
  traceparent: string | null;
}

/**
 * Leases up to `limit` due rows, oldest first, for `leaseMs`: until then no other replica claims
 * them, and after it any replica may (their relay died or hung). SKIP LOCKED keeps replicas that
 * claim at the same instant apart. A row behind an event of its aggregate that has failed before
 * (backing off or parked) is not a candidate at all, so parked aggregates do not fill batches; a
 * candidate behind an unpublished row that this claim does not take (another replica holds it) is
 * left alone, so its aggregate's events stay in order. A held row (outboxRow's holdMs) waits until
 * its hold ends by the database's clock or a later event of its aggregate is written, whichever
 * comes first: then the two are claimed together and the relay can send them as one message.
 */
export async function claimBatch(db: Queryable, limit: number, leaseMs: number): Promise<ClaimedRow[]> {
  const { rows } = await db.query(prepared(
    `WITH ${ASYNC_COMMIT_CTE}, candidates AS (
       SELECT o.event_id, o.aggregate_id, o.seq
       FROM outbox o
       WHERE o.published_at IS NULL AND o.parked_at IS NULL
         AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= now())
         AND (o.leased_until IS NULL OR o.leased_until <= now())
         AND (o.held_until IS NULL OR o.held_until <= now() OR EXISTS (
           SELECT 1 FROM outbox l WHERE l.aggregate_id = o.aggregate_id AND l.seq > o.seq AND l.published_at IS NULL))
         AND NOT EXISTS (
           SELECT 1 FROM outbox h
           WHERE h.aggregate_id = o.aggregate_id AND h.seq < o.seq AND h.published_at IS NULL AND h.attempts > 0)
       ORDER BY o.seq
       LIMIT $1
       FOR UPDATE OF o SKIP LOCKED
     )
     UPDATE outbox o SET leased_until = now() + $2 * interval '1 millisecond'
     FROM candidates c, async_commit
     WHERE o.event_id = c.event_id
       AND NOT EXISTS (
         SELECT 1 FROM outbox b
         WHERE b.aggregate_id = c.aggregate_id AND b.seq < c.seq AND b.published_at IS NULL
           AND b.event_id NOT IN (SELECT event_id FROM candidates))
     RETURNING o.event_id, o.aggregate_id, o.type, o.payload, o.attempts, o.traceparent, o.seq`,
    [limit, leaseMs],
  ));
  // UPDATE … RETURNING has no order of its own; the relay publishes in the outbox's.
  return rows
    .sort((a, b) => (BigInt(a.seq) < BigInt(b.seq) ? -1 : 1))
    .map(({ seq: _seq, ...row }) => row as ClaimedRow);
}

export interface PublishFailure {
  eventId: string;
  error: string;
  /** Parked now (the bus can never take it, or its attempts are used up); else retried after delayMs. */
  park: boolean;
  delayMs: number;
}

/** A row the bus acknowledged, with where the stream stored it when the bus tells (outbox-resend.ts). */
export interface Published {
  eventId: string;
  streamCreated?: string;
  streamSeq?: number;
}

export interface BatchOutcomes {
  published: Published[];
  /** Failed attempts counted against their event. */
  failures: PublishFailure[];
  /** Claimed but not attempted or not blamed (the bus is down): claimable again at once. */
  released: string[];
}

/**
 * Records a batch in one statement and ends its lease: published rows are marked sent, each
 * failure counts one attempt (a retry time, or parked with the error), released rows are as they
 * were. A failure or release is not applied to a row another replica has published meanwhile.
 */
export async function recordOutcomes(db: Queryable, { published, failures, released }: BatchOutcomes): Promise<void> {
  const ids = [...published.map((p) => p.eventId), ...failures.map((f) => f.eventId), ...released];
  const others = failures.length + released.length;
  if (ids.length === 0) return;
  const none = <T>(n: number) => Array<T | null>(n).fill(null);
  await db.query(prepared(
    `WITH ${ASYNC_COMMIT_CTE}
     UPDATE outbox o
     SET leased_until = NULL,
         published_at = CASE WHEN f.published THEN now() ELSE o.published_at END,
         stream_created = CASE WHEN f.published THEN f.stream_created ELSE o.stream_created END,
         stream_seq = CASE WHEN f.published THEN f.stream_seq ELSE o.stream_seq END,
         attempts = o.attempts + CASE WHEN f.error IS NULL THEN 0 ELSE 1 END,
         last_error = coalesce(f.error, o.last_error),
         parked_at = CASE WHEN f.park THEN now() ELSE o.parked_at END,
         next_attempt_at = CASE
           WHEN f.published OR f.park THEN NULL
           WHEN f.error IS NULL THEN o.next_attempt_at
           ELSE now() + f.delay_ms * interval '1 millisecond' END
     FROM unnest($1::text[], $2::boolean[], $3::text[], $4::boolean[], $5::int[], $6::timestamptz[], $7::bigint[])
         AS f(event_id, published, error, park, delay_ms, stream_created, stream_seq),
       async_commit
     WHERE o.event_id = f.event_id AND (f.published OR o.published_at IS NULL)`,
    [
      ids,
      ids.map((_, i) => i < published.length),
      [...none<string>(published.length), ...failures.map((f) => f.error), ...none<string>(released.length)],
      [...none<boolean>(published.length), ...failures.map((f) => f.park), ...none<boolean>(released.length)],
      [...none<number>(published.length), ...failures.map((f) => f.delayMs), ...none<number>(released.length)],
      [...published.map((p) => p.streamCreated ?? null), ...none<string>(others)],
      [...published.map((p) => p.streamSeq ?? null), ...none<number>(others)],
    ],
  ));
}
