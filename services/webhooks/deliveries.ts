import type { Mode } from '../contract/enums.js';
import type { Pool } from '../platform/db.js';
import type { Scope } from './endpoints.js';
import { attemptId } from './ids.js';

export type DeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'failed' | 'exhausted';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivering', 'succeeded', 'failed', 'exhausted'];

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

export type AttemptOutcome = 'succeeded' | 'failed' | 'exhausted';

export interface AttemptRow {
  id: string;
  attempt_number: number;
  manual: boolean;
  outcome: AttemptOutcome | null;
  next_attempt_at: Date | null;
  started_at: Date;
  duration_ms: number;
  request_headers: Array<[string, string]>;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
}

/** One attempt at delivering an event about a payment, with its delivery's facts (a payment's timeline). */
export interface PaymentAttemptRow extends Omit<AttemptRow, 'request_headers' | 'response_body'> {
  delivery_id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  url: string;
}

/** A delivery taken by one dispatcher: everything needed to make its next attempt. */
export interface Claim {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  mode: Mode;
  /** The number of the attempt this claim makes, among all the delivery's attempts (svc-delivery-attempt). */
  attempt: number;
  /** The automatic attempts made, this one included when it is automatic: what the schedule follows. */
  scheduled: number;
  url: string;
  storedSecret: string;
  body: string;
  /** The trace context its event arrived with (events.traceparent): the attempt's span continues it. */
  traceparent: string | null;
  /** The endpoint's maximum delivery rate (throttle.ts); null: none. */
  maxPerSecond: number | null;
  /** The endpoint asked (429 Retry-After) for no attempt before this; null: it did not. */
  pausedUntil: Date | null;
}

export interface Outcome {
  claim: Claim;
  manual: boolean;
  startedAt: Date;
  /** What the attempt leaves the delivery in; null: as it was (a failed resend). */
  status: AttemptOutcome | null;
  nextAttemptAt: Date | null;
  requestHeaders: Array<[string, string]>;
  responseStatus?: number;
  responseBody?: string;
  error?: string;
  durationMs: number;
  /** A 429 with Retry-After: the endpoint is paused until then and the attempt is not counted by the schedule. */
  throttledUntil?: Date;
}

export const ENDPOINT_STATES = ['healthy', 'failing', 'paused', 'disabled_manual', 'disabled_failing'] as const;
export type EndpointState = (typeof ENDPOINT_STATES)[number];

// Looked up per claimed row by primary key, so no plan ever scans the events table.
const CLAIMED = `d.id, d.endpoint_id, d.event_id, d.event_type, d.mode, d.attempt_count, d.scheduled_attempts,
  (SELECT e.url FROM endpoints e WHERE e.id = d.endpoint_id) AS url,
  (SELECT e.secret FROM endpoints e WHERE e.id = d.endpoint_id) AS secret,
  (SELECT ev.body FROM events ev WHERE ev.id = d.event_id) AS body,
  (SELECT ev.traceparent FROM events ev WHERE ev.id = d.event_id) AS traceparent,
  (SELECT e.max_per_second FROM endpoints e WHERE e.id = d.endpoint_id) AS max_per_second,
  (SELECT e.retry_after_until FROM endpoints e WHERE e.id = d.endpoint_id) AS retry_after_until`;
// What a recovery may resend ($1: now, $7: its cool-down in ms): failed or exhausted, not due for its own
// retry now (the dispatcher has it queued), and not taken by a recovery within the cool-down.
const RECOVERABLE = `(status IN ('failed', 'exhausted') AND NOT (status = 'failed' AND next_attempt_at <= $1)
  AND (recovered_at IS NULL OR recovered_at <= now() - $7::int * interval '1 millisecond'))`;
// A delivery parked by its disabled endpoint (next attempt 'infinity') has no next attempt to show.
const COLUMNS = `id, endpoint_id, event_id, event_type, status, attempt_count,
  CASE WHEN status IN ('pending', 'failed') AND next_attempt_at <> 'infinity' THEN next_attempt_at END AS next_attempt_at,
  last_response_status, last_error, created_at, updated_at`;
const ATTEMPT_COLUMNS = `id, attempt_number, manual, outcome, next_attempt_at, started_at, duration_ms, request_headers,
  response_status, response_body, error`;

function toClaim(row: any): Claim {
  return {
    id: row.id, endpointId: row.endpoint_id, eventId: row.event_id, eventType: row.event_type, mode: row.mode,
    attempt: row.attempt_count, scheduled: row.scheduled_attempts, url: row.url, storedSecret: row.secret, body: row.body,
    traceparent: row.traceparent, maxPerSecond: row.max_per_second ?? null, pausedUntil: row.retry_after_until ?? null,
  };
}

export function createDeliveryStore(pool: Pool) {
  return {
    /** Deliveries waiting for an attempt (pending or failed and due again), and those in flight: the queue depth. */
    /**
     * Endpoints of every project by how they stand (metrics.ts), each in one state: disabled by the
     * merchant or by the failing sweep; enabled and paused by a 429's Retry-After, else failing
     * (an unbroken run of failures), else healthy.
     */
    async endpointStates(): Promise<Record<EndpointState, number>> {
      const { rows } = await pool.query<Record<EndpointState, string>>(
        `SELECT count(*) FILTER (WHERE NOT enabled AND disabled_reason = 'failing') AS disabled_failing,
                count(*) FILTER (WHERE NOT enabled AND disabled_reason IS DISTINCT FROM 'failing') AS disabled_manual,
                count(*) FILTER (WHERE enabled AND retry_after_until > now()) AS paused,
                count(*) FILTER (WHERE enabled AND (retry_after_until IS NULL OR retry_after_until <= now())
                                 AND failing_since IS NOT NULL) AS failing,
                count(*) FILTER (WHERE enabled AND (retry_after_until IS NULL OR retry_after_until <= now())
                                 AND failing_since IS NULL) AS healthy
           FROM endpoints`,
      );
      return Object.fromEntries(ENDPOINT_STATES.map((s) => [s, Number(rows[0][s])])) as Record<EndpointState, number>;
    },

    async queueDepth(): Promise<{ waiting: number; delivering: number }> {
      const { rows } = await pool.query<{ waiting: string; delivering: string }>(
        `SELECT count(*) FILTER (WHERE status IN ('pending', 'failed')) AS waiting,
                count(*) FILTER (WHERE status = 'delivering') AS delivering
           FROM deliveries WHERE status IN ('pending', 'failed', 'delivering')`,
      );
      return { waiting: Number(rows[0].waiting), delivering: Number(rows[0].delivering) };
    },

    /**
     * Claims up to `limit` due deliveries (pending, failed and due, or delivering with a lapsed
     * lease) as `delivering` until `leaseUntil`. Rows another dispatcher holds are skipped, so
     * replicas never take the same one. Oldest first, but never more than `perEndpoint` claims held
     * by this dispatcher (`busy`) for one endpoint, nor more than its remaining room: a slow endpoint's
     * backlog is stepped over instead of filling the batch (no head-of-line blocking).
     *
     * The statement is claim_deliveries() of the migration, which also says why it is a function.
     * Each claim's trace context is read beside it rather than by the function, whose result
     * (prepared by replicas of the previous version during a rolling upgrade) keeps its shape.
     */
    async claim(now: Date, limit: number, perEndpoint: number, busy: Map<string, number>, leaseUntil: Date): Promise<Claim[]> {
      const full = [...busy].filter(([, n]) => n >= perEndpoint).map(([endpoint]) => endpoint);
      const { rows } = await pool.query({
        name: 'webhooks-claim',
        text: `SELECT c.id, c.endpoint_id, c.event_id, c.event_type, c.mode, c.attempt_count, c.scheduled_attempts, c.url,
            c.secret, c.body, (SELECT ev.traceparent FROM events ev WHERE ev.id = c.event_id) AS traceparent,
            (SELECT e.max_per_second FROM endpoints e WHERE e.id = c.endpoint_id) AS max_per_second,
            (SELECT e.retry_after_until FROM endpoints e WHERE e.id = c.endpoint_id) AS retry_after_until
          FROM claim_deliveries($1, $2, $3, $4, $5, $6, $7) c`,
        values: [now, limit, perEndpoint, [...busy.keys()], [...busy.values()], leaseUntil, full],
      });
      return rows.map(toClaim);
    },

    /**
     * Gives back claims whose attempt was never started (the dispatcher stopped, or the claim
     * waited too long for its endpoint), due at once (or at `dueAt`: its host's next slot) and as
     * they were before the claim, so the next attempt keeps its number. Only while the claim still holds.
     */
    async unclaim(claims: Claim[], now: Date, dueAt: Date = now): Promise<void> {
      await pool.query({
        name: 'webhooks-unclaim-at',
        text: `UPDATE deliveries d
           SET status = CASE WHEN d.scheduled_attempts = 1 THEN 'pending' ELSE 'failed' END,
             attempt_count = d.attempt_count - 1, scheduled_attempts = d.scheduled_attempts - 1,
             next_attempt_at = $4, updated_at = $1
           FROM unnest($2::text[], $3::int[]) AS c(id, attempt)
           WHERE d.id = c.id AND d.attempt_count = c.attempt AND d.status = 'delivering'`,
        values: [now, claims.map((c) => c.id), claims.map((c) => c.attempt), dueAt],
      });
    },

    /**
     * Claims one delivery of the scope for a manual resend, whatever its state, unless an attempt
     * (automatic or resent) is under way right now. Waits for (rather than skips) a dispatcher's
     * brief claim lock. The resend is an extra attempt: it takes the next attempt number, and holds
     * its own lease (resend_until) so no dispatcher sends the delivery meanwhile, while status,
     * next_attempt_at and scheduled_attempts (the retry schedule) stay as they were.
     *
     * For a recovery (`recoveryCooldownMs` given) only a delivery still failed or exhausted, of an
     * enabled endpoint, not due for its own retry now (the dispatcher has it) and not taken by a
     * recovery within the cool-down (database clock) is claimed, and it is marked taken.
     */
    async claimForResend(
      scope: Scope, id: string, now: Date, leaseUntil: Date, recoveryCooldownMs: number | null = null,
    ): Promise<Claim | 'busy' | undefined> {
      const { rows } = await pool.query(
        `UPDATE deliveries d
         SET attempt_count = d.attempt_count + 1, resend_until = $6, updated_at = $1,
           recovered_at = CASE WHEN $7::int IS NULL THEN d.recovered_at ELSE now() END
         FROM (SELECT id FROM deliveries
               WHERE id = $2 AND merchant_id = $3 AND project_id = $4 AND mode = $5
                 AND NOT (status = 'delivering' AND next_attempt_at > $1)
                 AND NOT (resend_until IS NOT NULL AND resend_until > $1)
                 AND ($7::int IS NULL OR (${RECOVERABLE}
                   AND (SELECT e.enabled FROM endpoints e WHERE e.id = deliveries.endpoint_id)))
               FOR UPDATE) c
         WHERE d.id = c.id
         RETURNING ${CLAIMED}`,
        [now, id, scope.merchantId, scope.projectId, scope.mode, leaseUntil, recoveryCooldownMs],
      );
      if (rows[0]) return toClaim(rows[0]);
      return (await this.get(scope, id)) ? 'busy' : undefined;
    },

    /** The URL of the endpoint a delivery of the scope goes to; undefined when there is no such delivery. */
    async destination(scope: Scope, id: string): Promise<string | undefined> {
      const { rows } = await pool.query(
        `SELECT e.url FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
         WHERE d.id = $1 AND d.merchant_id = $2 AND d.project_id = $3 AND d.mode = $4`,
        [id, scope.merchantId, scope.projectId, scope.mode],
      );
      return rows[0]?.url;
    },

    /**
     * Records attempts and moves their deliveries on, many in one statement (the dispatcher
     * batches them). A move applies only while its claim still holds (same attempt number, and
     * still delivering, or for a resend its lease still set): if the lease lapsed and another
     * attempt took over, that one decides; the attempt is kept in history either way. A failed
     * resend (no status) leaves the delivery as it was and only gives its lease back. Returns the
     * ids of the deliveries moved.
     *
     * The same statement keeps each endpoint's health (failing_since: the first of an unbroken run
     * of failures; last_failed_at) and its pause after a 429 with Retry-After, which is no failure
     * and, for an automatic attempt, does not count against the schedule either.
     *
     * The statement is complete_deliveries() of the migration, which says why it is a function.
     */
    async complete(outcomes: Outcome[], now: Date): Promise<Set<string>> {
      const col = <T>(f: (o: Outcome) => T) => outcomes.map(f);
      const { rows } = await pool.query({
        name: 'webhooks-complete',
        text: 'SELECT id FROM complete_deliveries($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) AS m(id)',
        values: [now, col((o) => o.claim.id), col((o) => o.claim.attempt), col((o) => o.status), col((o) => o.nextAttemptAt),
          col((o) => o.responseStatus ?? null), col((o) => o.error ?? null), col((o) => attemptId(o.startedAt)),
          col((o) => o.manual), col((o) => o.startedAt), col((o) => o.durationMs), col((o) => JSON.stringify(o.requestHeaders)),
          col((o) => o.responseBody ?? null), col((o) => o.claim.endpointId),
          col((o) => (o.throttledUntil ? null : o.status === 'succeeded')), col((o) => o.throttledUntil ?? null)],
      });
      return new Set(rows.map((r) => r.id as string));
    },

    async list(scope: Scope, filters: { endpointId?: string; eventType?: string; status?: string; startingAfter?: string; limit: number }) {
      const { rows } = await pool.query(
        `SELECT ${COLUMNS} FROM deliveries
         WHERE merchant_id = $1 AND project_id = $2 AND mode = $3
           AND ($4::text IS NULL OR endpoint_id = $4) AND ($5::text IS NULL OR event_type = $5)
           AND ($6::text IS NULL OR status = $6) AND ($7::text IS NULL OR id < $7)
         ORDER BY id DESC LIMIT $8`,
        [scope.merchantId, scope.projectId, scope.mode, filters.endpointId ?? null, filters.eventType ?? null,
          filters.status ?? null, filters.startingAfter ?? null, filters.limit + 1],
      );
      return { deliveries: rows.slice(0, filters.limit) as DeliveryRow[], hasMore: rows.length > filters.limit };
    },

    async get(scope: Scope, id: string): Promise<DeliveryRow | undefined> {
      const { rows } = await pool.query(
        `SELECT ${COLUMNS} FROM deliveries WHERE id = $1 AND merchant_id = $2 AND project_id = $3 AND mode = $4`,
        [id, scope.merchantId, scope.projectId, scope.mode],
      );
      return rows[0];
    },

    async history(deliveryId: string): Promise<{ attempts: AttemptRow[]; body: string }> {
      const [attempts, event] = await Promise.all([
        pool.query(
          `SELECT ${ATTEMPT_COLUMNS}
           FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt_number`,
          [deliveryId],
        ),
        pool.query('SELECT ev.body FROM deliveries d JOIN events ev ON ev.id = d.event_id WHERE d.id = $1', [deliveryId]),
      ]);
      return { attempts: attempts.rows, body: event.rows[0]?.body ?? '' };
    },

    /** Every attempt at delivering the scope's events about one payment (its own and its refunds'), oldest first. */
    async paymentAttempts(scope: Scope, paymentId: string): Promise<PaymentAttemptRow[]> {
      const { rows } = await pool.query(
        `SELECT a.id, a.attempt_number, a.manual, a.outcome, a.next_attempt_at, a.started_at, a.duration_ms,
           a.response_status, a.error, d.id AS delivery_id, d.event_id, d.event_type, d.endpoint_id, e.url
         FROM events ev
         JOIN deliveries d ON d.event_id = ev.id
         JOIN delivery_attempts a ON a.delivery_id = d.id
         JOIN endpoints e ON e.id = d.endpoint_id
         WHERE ev.payment_id = $1 AND ev.merchant_id = $2 AND ev.project_id = $3 AND ev.mode = $4
         ORDER BY a.started_at, a.id`,
        [paymentId, scope.merchantId, scope.projectId, scope.mode],
      );
      return rows;
    },

    /**
     * The ids of an endpoint's deliveries created at or after `since` that a recovery may resend
     * (RECOVERABLE: failed or exhausted, not due now, not recovered within the cool-down), oldest first.
     */
    async recoverableSince(scope: Scope, endpointId: string, since: Date, now: Date, cooldownMs: number, limit: number): Promise<string[]> {
      const { rows } = await pool.query(
        `SELECT id FROM deliveries
         WHERE endpoint_id = $2 AND merchant_id = $3 AND project_id = $4 AND mode = $5
           AND status IN ('failed', 'exhausted') AND created_at >= $6 AND ${RECOVERABLE}
         ORDER BY created_at, id LIMIT $8`,
        [now, endpointId, scope.merchantId, scope.projectId, scope.mode, since, cooldownMs, limit],
      );
      return rows.map((r) => r.id as string);
    },

    async attempt(deliveryId: string, attemptNumber: number): Promise<AttemptRow | undefined> {
      const { rows } = await pool.query(
        `SELECT ${ATTEMPT_COLUMNS}
         FROM delivery_attempts WHERE delivery_id = $1 AND attempt_number = $2`,
        [deliveryId, attemptNumber],
      );
      return rows[0];
    },
  };
}

export type DeliveryStore = ReturnType<typeof createDeliveryStore>;
