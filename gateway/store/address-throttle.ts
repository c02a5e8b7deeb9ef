import { ASYNC_COMMIT_CTE, prepared, type Pool } from '../../services/platform/db.js';

/**
 * Counts for the dashboard's per-client-address throttles (the rule and the routes:
 * gateway/dashboard/address-throttle.ts). A fixed window of one clock minute per route and address,
 * in Postgres so every gateway replica shares one budget.
 */

export const ADDRESS_WINDOW_MS = 60_000;
/** Rows of past minutes each counting statement deletes in passing (it creates at most one). */
const PRUNE_PER_CALL = 20;

// The ON CONFLICT ... WHERE is evaluated on the locked, latest version of the row, so two replicas
// cannot both take the last place; the first request of a minute inserts (a limit is at least 1).
// A refused request changes nothing, so a client retrying too early is not held back longer.
// SKIP LOCKED leaves rows another statement holds to a later call. A count lost in a database
// crash only lets a few more requests through: commit asynchronously.
const TAKE_SQL = `
WITH ${ASYNC_COMMIT_CTE},
counted AS (
  INSERT INTO address_throttle_windows AS w (route, address, window_start, count) VALUES ($1, $2, $3, 1)
  ON CONFLICT (route, address, window_start) DO UPDATE SET count = w.count + 1 WHERE w.count < $4
  RETURNING w.count
),
pruned AS (
  DELETE FROM address_throttle_windows WHERE ctid IN (
    SELECT ctid FROM address_throttle_windows WHERE window_start < $3 LIMIT ${PRUNE_PER_CALL} FOR UPDATE SKIP LOCKED)
)
SELECT (SELECT count FROM counted) AS counted FROM async_commit`;

/** The clock minute `at` falls in: its start, and the milliseconds left in it. */
export function addressWindowOf(at: Date): { start: Date; leftMs: number } {
  const ms = at.getTime();
  const elapsed = ((ms % ADDRESS_WINDOW_MS) + ADDRESS_WINDOW_MS) % ADDRESS_WINDOW_MS;
  return { start: new Date(ms - elapsed), leftMs: ADDRESS_WINDOW_MS - elapsed };
}

export function createAddressThrottleStore(pool: Pool) {
  return {
    /** Counts one request of `address` to `route` if it fits under `limit` this minute; whether it did. */
    async takeAddressRequest(route: string, address: string, limit: number, at: Date): Promise<boolean> {
      const { rows } = await pool.query(prepared(TAKE_SQL, [route, address, addressWindowOf(at).start, limit]));
      return rows[0].counted !== null;
    },
  };
}

export type AddressThrottleStore = ReturnType<typeof createAddressThrottleStore>;
