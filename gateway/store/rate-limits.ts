import { createBatcher } from '../../services/platform/batcher.js';
import { ASYNC_COMMIT_CTE, prepared, withTransaction, type Pool } from '../../services/platform/db.js';
import { refusedByPostgres } from '../../services/platform/group-commit.js';
import { sha256Hex } from '../../services/platform/ids.js';
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

// One statement per request alone, the key's lookup included. The estimate of requests in the last 60 s is
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

// The same for the requests that arrived together (admitRequest's batch), in one statement: each
// request is a row of the parallel arrays ($1 hash, $2 window start, $3 previous window's start,
// $4 ms left, $5 deployment ceiling, $6 time), numbered by `ord`. The requests of one key and
// minute share one row of rate_limit_windows, which one upsert cannot hit twice, so the statement
// counts them itself, in `ord` order, exactly as one after the other: `scan` walks their ranks
// from the row's count c, each admitted when the count before it is below its bound `b` (the
// admission rule above solved for the count: previous × left_ms + (count + 1) × 60000 ≤ lim × 60000),
// and the upsert adds the number admitted, `k`. `cur` locks the existing rows first, in key order,
// so c is the count the upsert will see. A row that another replica inserts after that read is
// left alone (`locked` false: the upsert does nothing), and the requests of that key and minute
// are counted again, each alone (createRateLimitStore below).
const ADMIT_BATCH_SQL = `
WITH RECURSIVE ${ASYNC_COMMIT_CTE},
req AS (
  SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::bigint[], $5::bigint[], $6::timestamptz[])
    WITH ORDINALITY AS r(secret_hash, start, prev_start, left_ms, default_lim, at, ord)
),
keyed AS (
  SELECT req.ord, req.start, req.prev_start, req.left_ms, req.at, i.*, COALESCE(i.rate_limit_per_minute, req.default_lim) AS lim,
    COALESCE((SELECT count FROM rate_limit_windows WHERE api_key_id = i.id AND window_start = req.prev_start), 0)::bigint AS n,
    row_number() OVER (PARTITION BY i.id, req.start ORDER BY req.ord) AS rank
  FROM req CROSS JOIN LATERAL (${IDENTITY_SQL.replace('$1', 'req.secret_hash')}) i
),
bounded AS (
  SELECT keyed.*, floor((keyed.lim * 60000 - keyed.n * keyed.left_ms)::numeric / 60000)::bigint AS b FROM keyed
),
cur AS (
  SELECT api_key_id, window_start, count FROM rate_limit_windows
  WHERE (api_key_id, window_start) IN (SELECT id, start FROM keyed)
  ORDER BY api_key_id, window_start FOR UPDATE
),
base AS (
  SELECT DISTINCT r.id, r.start, COALESCE(c.count, 0)::bigint AS c, c.count IS NOT NULL AS locked
  FROM keyed r LEFT JOIN cur c ON c.api_key_id = r.id AND c.window_start = r.start
),
scan AS (
  SELECT id, start, 0::bigint AS rank, c AS a FROM base
  UNION ALL
  SELECT s.id, s.start, s.rank + 1, s.a + (s.a < r.b)::int
  FROM scan s JOIN bounded r ON r.id = s.id AND r.start = s.start AND r.rank = s.rank + 1
),
grp AS (
  SELECT b.id, b.start, b.c, b.locked, max(s.a) - b.c AS k
  FROM base b JOIN scan s ON s.id = b.id AND s.start = b.start GROUP BY b.id, b.start, b.c, b.locked
),
counted AS (
  INSERT INTO rate_limit_windows AS w (api_key_id, window_start, count)
  SELECT id, start, k FROM grp WHERE k > 0
  ON CONFLICT (api_key_id, window_start) DO UPDATE SET count = w.count + EXCLUDED.count
    WHERE EXISTS (SELECT 1 FROM grp WHERE grp.id = w.api_key_id AND grp.start = w.window_start AND grp.locked)
  RETURNING w.api_key_id, w.window_start, w.count
),
swept AS (
  DELETE FROM rate_limit_windows WHERE (api_key_id, window_start) IN (
    SELECT w.api_key_id, w.window_start FROM rate_limit_windows w
    JOIN (SELECT id, min(prev_start) AS before FROM keyed GROUP BY id) s ON w.api_key_id = s.id AND w.window_start < s.before
    FOR UPDATE OF w SKIP LOCKED)
),
used AS (
  UPDATE api_keys a SET last_used_at = u.at FROM (SELECT id, max(at) AS at, max(start) AS start FROM keyed GROUP BY id) u
  WHERE a.id = u.id AND (a.last_used_at IS NULL OR a.last_used_at < u.start)
)
SELECT r.*, r.n::integer AS previous, s.a::integer AS before, s.a < r.b AS admitted, g.k::integer AS added,
  (SELECT count FROM counted WHERE counted.api_key_id = r.id AND counted.window_start = r.start) AS counted
FROM bounded r JOIN scan s ON s.id = r.id AND s.start = r.start AND s.rank = r.rank - 1
JOIN grp g ON g.id = r.id AND g.start = r.start, async_commit`;

/** Requests admitted together at most: one statement's arrays. */
const MAX_ADMISSION_BATCH = 64;

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

interface AdmissionRequest {
  secret: string;
  defaultLimit: number;
  at: Date;
}

/** undefined: the request must be counted again, alone (its key's row appeared meanwhile). */
function batchAdmission(r: Record<string, any>, at: Date): Admission | undefined {
  if (r.counted === null && r.added > 0) return undefined;
  const current = r.admitted ? r.before + 1 : r.before;
  const counts = { admitted: r.admitted, previous: r.previous, current, elapsedMs: windowOf(at).elapsedMs };
  return { identity: toIdentity(r), limit: Number(r.lim), counts };
}

export function createRateLimitStore(pool: Pool) {
  const alone = async ({ secret, defaultLimit, at }: AdmissionRequest): Promise<Admission | undefined> => {
    const { rows } = await pool.query(prepared(ADMIT_SQL, countingValues(sha256Hex(secret), defaultLimit, at)));
    const r = rows[0];
    return r && { identity: toIdentity(r), limit: Number(r.lim), counts: countsOf(r, at) };
  };
  // Requests that arrive while a statement is under way are admitted together by the next one
  // (createBatcher); alone, a request is the one statement it always was.
  const admit = createBatcher(async (batch: AdmissionRequest[]): Promise<Array<Admission | undefined>> => {
    if (batch.length === 1) return [await alone(batch[0])];
    const values = batch.map((b) => countingValues(sha256Hex(b.secret), b.defaultLimit, b.at));
    let rows: Record<string, any>[];
    try {
      ({ rows } = await pool.query(prepared(ADMIT_BATCH_SQL, values[0].map((_, i) => values.map((v) => v[i])))));
    } catch (err) {
      // Refused as a whole (a deadlock against another replica's batch): nothing was counted.
      if (!refusedByPostgres(err)) throw err;
      return Promise.all(batch.map(alone));
    }
    const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
    return Promise.all(batch.map(async (b, i) => {
      const r = byOrd.get(i + 1);
      return r && (batchAdmission(r, b.at) ?? alone(b));
    }));
  }, MAX_ADMISSION_BATCH);

  return {
    /**
     * The identity behind a presented secret with this request counted against its ceiling
     * (`defaultLimit` unless the key has its own), in one round trip; undefined for an unknown or
     * revoked key, which counts nothing. `at` comes from the injected clock, never from the
     * database's now(), so tests move time freely; replicas' clocks are assumed in sync to well
     * under a minute (NTP).
     */
    async admitRequest(secret: string, defaultLimit: number, at: Date): Promise<Admission | undefined> {
      return admit({ secret, defaultLimit, at });
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
