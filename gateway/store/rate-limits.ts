import {
  ASYNC_COMMIT_CTE, prepared, sha256Hex, withTransaction, type Pool,
} from '../../services/platform/index.js';
import { audit, IDENTITY_SQL, keyView, toIdentity, type ApiKeyView, type Identity } from './keys.js';

/**
 * Per-key request counting for the rate limit (sliding-window counter) and the per-key ceiling.
 * The counts live in Postgres, not in a replica's memory, so every gateway replica sees one budget.
 */

/** The rolling window, and also the width of each counting bucket. */
export const RATE_WINDOW_MS = 60_000;

/** What one counting call saw: enough to derive remaining capacity and reset times without another query. */
export interface WindowCounts {
  /** Whether this request fitted under the ceiling and was counted. */
  admitted: boolean;
  /** Requests admitted in the previous clock minute. */
  previous: number;
  /** Requests admitted in the current clock minute, this one included when admitted. */
  current: number;
  /** How far `at` is into the current clock minute, 0 ≤ elapsedMs < RATE_WINDOW_MS. */
  elapsedMs: number;
}

export interface KeyWithRateLimit extends ApiKeyView {
  /** The key's own ceiling, or null for the deployment's RATE_LIMIT_PER_MINUTE. */
  rate_limit_per_minute: number | null;
}

// One statement per request, the key's lookup included. The estimate of requests in the last 60 s is
//   previous × (time left in the current minute / 60 s) + current,
// i.e. the previous minute's requests taken as evenly spread. A request is admitted when the
// estimate including it stays within the ceiling; compared in integer milliseconds
// (previous × left_ms + (current + 1) × 60000 ≤ limit × 60000) so SQL and TypeScript agree exactly.
//
// The ON CONFLICT ... WHERE is what makes the check atomic across replicas: Postgres evaluates it
// on the locked, latest version of the row, so two replicas cannot both take the last slot. The
// INSERT's own WHERE covers the first request of a minute. A refused request changes nothing
// (refused requests do not consume quota), so its `current` comes from the statement's snapshot.
// Older rows of the key are deleted in passing: at most one real delete per key per minute.
// SKIP LOCKED leaves a row another statement holds to a later sweep; waiting for it instead could
// deadlock against a replica whose clock (skewed by minutes) still counts into that row.
// A count lost in a database crash only lets a few more requests through: commit asynchronously.
//
// `k` is the presented key ($1, its sha256), one row or none, with its ceiling `lim`: its own, else
// the deployment's ($5). $2 is the window's start, $3 the previous window's, $4 the ms left in it.
// `used` stamps the key's last_used_at ($6, the request's time) once per key and clock minute: the
// dashboard's "last used" at the cost of one row write a minute, in the same round trip.
const ADMIT_SQL = `
WITH ${ASYNC_COMMIT_CTE},
k AS (SELECT i.*, COALESCE(i.rate_limit_per_minute, $5::bigint) AS lim FROM (${IDENTITY_SQL}) i),
previous AS (
  SELECT k.id, k.lim,
    COALESCE((SELECT count FROM rate_limit_windows WHERE api_key_id = k.id AND window_start = $3), 0)::bigint AS n
  FROM k
),
counted AS (
  INSERT INTO rate_limit_windows AS w (api_key_id, window_start, count)
  SELECT previous.id, $2, 1 FROM previous WHERE previous.n * $4::bigint + 60000 <= previous.lim * 60000
  ON CONFLICT (api_key_id, window_start) DO UPDATE SET count = w.count + 1
    WHERE (SELECT n FROM previous) * $4::bigint + (w.count + 1)::bigint * 60000 <= (SELECT lim FROM previous) * 60000
  RETURNING w.count
),
swept AS (
  DELETE FROM rate_limit_windows WHERE (api_key_id, window_start) IN (
    SELECT api_key_id, window_start FROM rate_limit_windows WHERE api_key_id = (SELECT id FROM k) AND window_start < $3
    FOR UPDATE SKIP LOCKED)
),
used AS (
  UPDATE api_keys SET last_used_at = $6 WHERE id = (SELECT id FROM k) AND (last_used_at IS NULL OR last_used_at < $2)
)
SELECT k.*, (SELECT n FROM previous)::integer AS previous,
       (SELECT count FROM counted) AS counted,
       COALESCE((SELECT count FROM rate_limit_windows WHERE api_key_id = k.id AND window_start = $2), 0) AS snapshot
FROM k, async_commit`;

/** The clock minute `at` falls in, and how far into it. */
function windowOf(at: Date) {
  const ms = at.getTime();
  const elapsedMs = ((ms % RATE_WINDOW_MS) + RATE_WINDOW_MS) % RATE_WINDOW_MS;
  return { start: ms - elapsedMs, elapsedMs };
}

function countingValues(key: string, limit: number, at: Date): unknown[] {
  const { start, elapsedMs } = windowOf(at);
  return [key, new Date(start), new Date(start - RATE_WINDOW_MS), RATE_WINDOW_MS - elapsedMs, limit, at];
}

function countsOf(r: Record<string, any>, at: Date): WindowCounts {
  const admitted = r.counted !== null;
  return { admitted, previous: r.previous, current: admitted ? r.counted : r.snapshot, elapsedMs: windowOf(at).elapsedMs };
}

/** A presented key's identity, the ceiling that applies to it and the count of this request. */
export interface Admission {
  identity: Identity;
  limit: number;
  counts: WindowCounts;
}

function keyWithRateLimit(r: Record<string, any>): KeyWithRateLimit {
  return { ...keyView(r), rate_limit_per_minute: r.rate_limit_per_minute };
}

export function createRateLimitStore(pool: Pool) {
  return {
    /**
     * The identity behind a presented secret with this request counted against its ceiling
     * (`defaultLimit` unless the key has its own), in one round trip; undefined for an unknown or
     * revoked key, which counts nothing. `at` comes from the injected clock, never from the
     * database's now(), so tests move time freely; replicas' clocks are assumed in sync to well
     * under a minute (NTP).
     */
    async admitRequest(secret: string, defaultLimit: number, at: Date): Promise<Admission | undefined> {
      const { rows } = await pool.query(prepared(ADMIT_SQL, countingValues(sha256Hex(secret), defaultLimit, at)));
      const r = rows[0];
      return r && { identity: toIdentity(r), limit: Number(r.lim), counts: countsOf(r, at) };
    },

    /** Gives back the count of an admitted request refused after all (by the IP allow-list). */
    async uncountRequest(apiKeyId: string, at: Date): Promise<void> {
      await pool.query(
        'UPDATE rate_limit_windows SET count = count - 1 WHERE api_key_id = $1 AND window_start = $2 AND count > 0',
        [apiKeyId, new Date(windowOf(at).start)],
      );
    },

    /** Sets (or with null clears) a key's own ceiling, audited; undefined for an unknown key. */
    async setKeyRateLimit(
      keyId: string, perMinute: number | null, actor: string, at: Date,
    ): Promise<KeyWithRateLimit | undefined> {
      return withTransaction(pool, async (tx) => {
        // The old value goes into the audit record, so read it under the row lock we update with.
        const before = await tx.query('SELECT rate_limit_per_minute FROM api_keys WHERE id = $1 FOR UPDATE', [keyId]);
        if (before.rows.length === 0) return undefined;
        const { rows } = await tx.query('UPDATE api_keys SET rate_limit_per_minute = $2 WHERE id = $1 RETURNING *', [
          keyId, perMinute,
        ]);
        const key = rows[0];
        await audit(tx, actor, 'api_key.rate_limit_updated', at, {
          merchantId: key.merchant_id, projectId: key.project_id, targetId: keyId,
          data: { from: before.rows[0].rate_limit_per_minute, to: perMinute },
        });
        return keyWithRateLimit(key);
      });
    },
  };
}

export type RateLimitStore = ReturnType<typeof createRateLimitStore>;
