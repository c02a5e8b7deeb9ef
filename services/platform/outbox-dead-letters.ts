import type { Queryable } from './db.js';

// The parked rows of a part's outbox, as operators see and release them (OutboxService,
// services/platform/outbox-service.ts). Nothing here returns a payload: its size only.

export interface DeadLetterRow {
  eventId: string;
  type: string;
  aggregateId: string;
  merchantId: string;
  projectId: string;
  mode: string;
  attempts: number;
  lastError: string;
  payloadBytes: number;
  createdAt: Date;
  parkedAt: Date | null;
  publishedAt: Date | null;
  heldBack: number;
}

const COLUMNS = `o.event_id, o.type, o.aggregate_id, o.merchant_id, o.project_id, o.mode, o.attempts,
  coalesce(o.last_error, '') AS last_error, o.payload, o.created_at, o.parked_at,
  o.published_at,
  (SELECT count(*)::int FROM outbox w
   WHERE w.aggregate_id = o.aggregate_id AND w.published_at IS NULL AND w.seq > o.seq) AS held_back`;

function toRow(r: any): DeadLetterRow {
  return {
    eventId: r.event_id, type: r.type, aggregateId: r.aggregate_id, merchantId: r.merchant_id, projectId: r.project_id,
    mode: r.mode, attempts: r.attempts, lastError: r.last_error,
    // What the relay publishes: the payload as compact JSON. The payload itself never leaves here.
    payloadBytes: Buffer.byteLength(JSON.stringify(r.payload)),
    createdAt: r.created_at, parkedAt: r.parked_at, publishedAt: r.published_at, heldBack: r.held_back,
  };
}

/** Parked events, oldest first; `limit + 1` are read to tell whether there are more. */
export async function listDeadLetters(
  db: Queryable, limit: number, startingAfter?: string,
): Promise<{ rows: DeadLetterRow[]; hasMore: boolean }> {
  const { rows } = await db.query(
    `SELECT ${COLUMNS} FROM outbox o
     WHERE o.parked_at IS NOT NULL
       AND ($2::text IS NULL OR o.seq > coalesce((SELECT seq FROM outbox WHERE event_id = $2), 0))
     ORDER BY o.seq LIMIT $1`,
    [limit + 1, startingAfter ?? null],
  );
  return { rows: rows.slice(0, limit).map(toRow), hasMore: rows.length > limit };
}

export async function findOutboxEvent(db: Queryable, eventId: string): Promise<DeadLetterRow | undefined> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM outbox o WHERE o.event_id = $1`, [eventId]);
  return rows[0] ? toRow(rows[0]) : undefined;
}

/** Returns a parked event to the relay with fresh attempts; false when it is not parked. */
export async function releaseDeadLetter(db: Queryable, eventId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE outbox SET parked_at = NULL, attempts = 0, next_attempt_at = NULL
     WHERE event_id = $1 AND parked_at IS NOT NULL AND published_at IS NULL`,
    [eventId],
  );
  return rowCount === 1;
}

/**
 * Marks every event published at or after `since` unpublished again. They keep their place
 * (seq), so each aggregate's events go out again in their order, before its newer ones.
 */
export async function republishSince(db: Queryable, since: Date): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE outbox SET published_at = NULL, attempts = 0, next_attempt_at = NULL, stream_created = NULL, stream_seq = NULL
     WHERE published_at >= $1`,
    [since],
  );
  return rowCount ?? 0;
}
