import { prepared, withTransaction, type Pool } from '../../services/platform/db.js';
import type { AdmissionChange } from './admission-change.js';
import { audit, keyView, type ApiKeyView } from './keys.js';

// The rate limit's counts as Postgres keeps them for every replica: one row per API key and clock
// minute (migration 0003). Each replica counts in memory and reconciles here (edge/rate-counter.ts);
// the rule that admits or refuses is edge/rate-limit.ts's alone. These statements only add, read
// and sweep counts, and stamp a key's last use.

export interface KeyWithRateLimit extends ApiKeyView {
  /** The key's own ceiling, or null for the deployment's RATE_LIMIT_PER_MINUTE. */
  rate_limit_per_minute: number | null;
}

/** A key's count in one clock minute. */
export interface WindowRow {
  keyId: string;
  start: Date;
  count: number;
}

// This replica's admissions not yet written ($3, negative for counts given back), added to each
// (key, minute) row listed, and every listed row's total read back, a delta of 0 only reading it.
// Rows are added in key order, so two replicas' statements take their row locks in one order. A key
// deleted meanwhile is skipped rather than failing the statement on its foreign key.
const RECONCILE_SQL = `
WITH d AS (SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::int[]) AS d(api_key_id, window_start, delta)),
added AS (
  INSERT INTO rate_limit_windows AS w (api_key_id, window_start, count)
  SELECT d.api_key_id, d.window_start, d.delta FROM d
  WHERE d.delta > 0 AND EXISTS (SELECT 1 FROM api_keys k WHERE k.id = d.api_key_id)
  ORDER BY d.api_key_id, d.window_start
  ON CONFLICT (api_key_id, window_start) DO UPDATE SET count = w.count + EXCLUDED.count
  RETURNING w.api_key_id, w.window_start, w.count
),
taken AS (
  UPDATE rate_limit_windows w SET count = GREATEST(w.count + d.delta, 0) FROM d
  WHERE d.delta < 0 AND w.api_key_id = d.api_key_id AND w.window_start = d.window_start
  RETURNING w.api_key_id, w.window_start, w.count
)
SELECT * FROM added UNION ALL SELECT * FROM taken
UNION ALL SELECT w.api_key_id, w.window_start, w.count FROM rate_limit_windows w
  JOIN d ON d.api_key_id = w.api_key_id AND d.window_start = w.window_start WHERE d.delta = 0`;

// One key's minute counted at once, for a replica that may not count it from memory: this replica's
// pending delta ($3) is added, then up to $4 requests while the count stays within $5, the most the
// minute may hold (edge/rate-limit.ts computed it). The row is read under its lock (FOR UPDATE reads
// the latest version), so `before` is what the update added to and two replicas cannot both take the
// last slot. The previous minute ($6) is read alongside, for the caller to check the ceiling it used.
const COUNT_SQL = `
UPDATE rate_limit_windows w
SET count = GREATEST(o.count + $3, 0) + LEAST($4::int, GREATEST($5::int - GREATEST(o.count + $3, 0), 0))
FROM (SELECT count FROM rate_limit_windows WHERE api_key_id = $1 AND window_start = $2 FOR UPDATE) o
WHERE w.api_key_id = $1 AND w.window_start = $2
RETURNING GREATEST(o.count + $3, 0) AS before, w.count,
  COALESCE((SELECT p.count FROM rate_limit_windows p WHERE p.api_key_id = $1 AND p.window_start = $6), 0) AS previous`;

/** The row COUNT_SQL updates, made first when the minute has none (its first request anywhere). */
const OPEN_SQL = `
INSERT INTO rate_limit_windows (api_key_id, window_start, count)
SELECT $1, $2, 0 WHERE EXISTS (SELECT 1 FROM api_keys WHERE id = $1)
ON CONFLICT (api_key_id, window_start) DO NOTHING`;

// Minutes before the previous one are never read again. SKIP LOCKED leaves a row another statement
// holds to a later sweep.
const SWEEP_SQL = `
DELETE FROM rate_limit_windows WHERE (api_key_id, window_start) IN (
  SELECT api_key_id, window_start FROM rate_limit_windows WHERE window_start < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`;

// The dashboard's "last used", to the minute: a key's row is written at most once per clock minute.
const STAMP_SQL = `
UPDATE api_keys a SET last_used_at = u.at FROM unnest($1::text[], $2::timestamptz[]) AS u(id, at)
WHERE a.id = u.id AND (a.last_used_at IS NULL OR a.last_used_at < date_trunc('minute', u.at))`;

/** Old minutes deleted by one sweep at most. */
const SWEEP_BATCH = 1_000;

/** What COUNT_SQL saw: the count before the requests, after them, and the previous minute's. */
export interface CountedMinute {
  before: number;
  count: number;
  previous: number;
}

export function createRateLimitStore(pool: Pool, changed: (change: AdmissionChange) => void = () => undefined) {
  return {
    /** Adds each row's delta and reads every listed row's total (absent: no row, a count of 0). */
    async reconcileCounts(rows: Array<{ keyId: string; start: Date; delta: number }>): Promise<WindowRow[]> {
      const { rows: totals } = await pool.query(prepared(RECONCILE_SQL, [
        rows.map((r) => r.keyId), rows.map((r) => r.start), rows.map((r) => r.delta),
      ]));
      return totals.map((r) => ({ keyId: r.api_key_id, start: new Date(r.window_start), count: r.count }));
    },

    /**
     * Counts up to `wanted` requests of a key's minute while it holds at most `ceiling`, adding
     * `delta` first; undefined for a key that no longer exists.
     */
    async countMinute(keyId: string, start: Date, previousStart: Date, delta: number, wanted: number, ceiling: number): Promise<CountedMinute | undefined> {
      const values = [keyId, start, delta, wanted, ceiling, previousStart];
      let { rows } = await pool.query(prepared(COUNT_SQL, values));
      if (rows.length === 0) {
        await pool.query(prepared(OPEN_SQL, [keyId, start]));
        ({ rows } = await pool.query(prepared(COUNT_SQL, values)));
      }
      return rows[0] && { before: rows[0].before, count: rows[0].count, previous: rows[0].previous };
    },

    /** Deletes counts of minutes before `before`; how many went. */
    async sweepCounts(before: Date): Promise<number> {
      return (await pool.query(prepared(SWEEP_SQL, [before, SWEEP_BATCH]))).rowCount ?? 0;
    },

    /** Stamps each key's last use, at most once per clock minute. */
    async stampLastUsed(uses: Array<{ keyId: string; at: Date }>): Promise<void> {
      await pool.query(prepared(STAMP_SQL, [uses.map((u) => u.keyId), uses.map((u) => u.at)]));
    },

    /** Sets (or with null clears) a key's own ceiling, audited; undefined for an unknown key. */
    async setKeyRateLimit(
      keyId: string, perMinute: number | null, actor: string, at: Date,
    ): Promise<KeyWithRateLimit | undefined> {
      const updated = await withTransaction(pool, async (tx) => {
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
        return { ...keyView(key), rate_limit_per_minute: key.rate_limit_per_minute };
      });
      // After the commit: a lookup under way can no longer keep what it read before it.
      if (updated) changed({ kind: 'key', id: keyId });
      return updated;
    },
  };
}

export type RateLimitStore = ReturnType<typeof createRateLimitStore>;
