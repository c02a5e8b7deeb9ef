import type { PoolClient } from './db.js';

// The outbox relay's SQL: which rows a batch claims, and what it records of their publishing.
// docs/decisions.md, "No event blocks another", explains the rules.

export interface ClaimedRow {
  event_id: string;
  aggregate_id: string;
  type: string;
  payload: unknown;
  attempts: number;
  /** An earlier event of its aggregate is unpublished and not in this batch: not yet. */
  blocked: boolean;
}

/**
 * Claims up to `limit` due rows, oldest first. SKIP LOCKED lets replicas relay side by side.
 * A row behind an event of its aggregate that has failed before (backing off or parked) is not
 * claimed at all, so parked aggregates do not fill batches; a row behind one that another replica
 * holds right now is claimed but marked blocked, and left for a later batch.
 */
export async function claimBatch(client: PoolClient, limit: number): Promise<ClaimedRow[]> {
  const { rows } = await client.query(
    `WITH claimed AS (
       SELECT o.event_id, o.aggregate_id, o.seq, o.type, o.payload, o.attempts
       FROM outbox o
       WHERE o.published_at IS NULL AND o.parked_at IS NULL
         AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= now())
         AND NOT EXISTS (
           SELECT 1 FROM outbox h
           WHERE h.aggregate_id = o.aggregate_id AND h.seq < o.seq AND h.published_at IS NULL AND h.attempts > 0)
       ORDER BY o.seq
       LIMIT $1
       FOR UPDATE OF o SKIP LOCKED
     )
     SELECT c.event_id, c.aggregate_id, c.type, c.payload, c.attempts,
            EXISTS (
              SELECT 1 FROM outbox b
              WHERE b.aggregate_id = c.aggregate_id AND b.seq < c.seq AND b.published_at IS NULL
                AND b.event_id NOT IN (SELECT event_id FROM claimed)) AS blocked
     FROM claimed c
     ORDER BY c.seq`,
    [limit],
  );
  return rows;
}

export interface PublishFailure {
  eventId: string;
  error: string;
  /** Parked now (the bus can never take it, or its attempts are used up); else retried after delayMs. */
  park: boolean;
  delayMs: number;
}

export async function markPublished(client: PoolClient, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return;
  await client.query('UPDATE outbox SET published_at = now(), next_attempt_at = NULL WHERE event_id = ANY($1)', [eventIds]);
}

/** Counts one failed attempt per row: a retry time, or parked with the error. */
export async function recordFailures(client: PoolClient, failures: PublishFailure[]): Promise<void> {
  if (failures.length === 0) return;
  await client.query(
    `UPDATE outbox o
     SET attempts = o.attempts + 1, last_error = f.error,
         parked_at = CASE WHEN f.park THEN now() END,
         next_attempt_at = CASE WHEN f.park THEN NULL ELSE now() + f.delay_ms * interval '1 millisecond' END
     FROM unnest($1::text[], $2::text[], $3::boolean[], $4::int[]) AS f(event_id, error, park, delay_ms)
     WHERE o.event_id = f.event_id`,
    [failures.map((f) => f.eventId), failures.map((f) => f.error), failures.map((f) => f.park), failures.map((f) => f.delayMs)],
  );
}
