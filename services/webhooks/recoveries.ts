import type { Pool } from '../platform/db.js';

// The recoveries table (migration 0008): at most one recovery runs per endpoint across replicas.
// Its row is a lease taken, renewed and judged with the database's clock, held by one run (run_id);
// a call while it holds starts nothing and is answered with the row.

export interface RecoveryState {
  /** Deliveries the recovery found to resend. */
  deliveries: number;
  /** Resends made so far. */
  resent: number;
  since: Date;
  startedAt: Date;
  running: boolean;
}

const STATE = `deliveries, resent, since, started_at, (finished_at IS NULL AND lease_until > now()) AS running`;

const toState = (row: any): RecoveryState => ({
  deliveries: row.deliveries, resent: row.resent, since: row.since, startedAt: row.started_at, running: row.running,
});

export function createRecoveryStore(pool: Pool) {
  return {
    /**
     * Starts the endpoint's recovery as `runId` unless one is running (unfinished, its lease held):
     * `started` says which, and the state is the one now running (or the last one).
     */
    async start(endpointId: string, runId: string, since: Date, leaseMs: number): Promise<{ started: boolean; state: RecoveryState }> {
      const { rows } = await pool.query(
        `INSERT INTO recoveries AS r (endpoint_id, run_id, since, deliveries, resent, started_at, lease_until)
         VALUES ($1, $2, $3, 0, 0, now(), now() + $4::int * interval '1 millisecond')
         ON CONFLICT (endpoint_id) DO UPDATE SET run_id = EXCLUDED.run_id, since = EXCLUDED.since, deliveries = 0,
           resent = 0, started_at = EXCLUDED.started_at, lease_until = EXCLUDED.lease_until, finished_at = NULL
         WHERE r.finished_at IS NOT NULL OR r.lease_until <= now()
         RETURNING ${STATE}`,
        [endpointId, runId, since, leaseMs],
      );
      if (rows[0]) return { started: true, state: toState(rows[0]) };
      const held = await pool.query(`SELECT ${STATE} FROM recoveries WHERE endpoint_id = $1`, [endpointId]);
      return { started: false, state: toState(held.rows[0]) };
    },

    /** Sets how many deliveries the run found (and finishes it at once when none). */
    async found(endpointId: string, runId: string, deliveries: number): Promise<void> {
      await pool.query(
        `UPDATE recoveries SET deliveries = $3, finished_at = CASE WHEN $3 = 0 THEN now() END
         WHERE endpoint_id = $1 AND run_id = $2`,
        [endpointId, runId, deliveries],
      );
    },

    /**
     * Renews the run's lease; false when the run no longer holds the row or the endpoint was
     * disabled meanwhile: the run then stops.
     */
    async renew(endpointId: string, runId: string, leaseMs: number): Promise<boolean> {
      const { rowCount } = await pool.query(
        `UPDATE recoveries r SET lease_until = now() + $3::int * interval '1 millisecond'
         FROM endpoints e
         WHERE r.endpoint_id = $1 AND r.run_id = $2 AND r.finished_at IS NULL AND e.id = r.endpoint_id AND e.enabled`,
        [endpointId, runId, leaseMs],
      );
      return (rowCount ?? 0) > 0;
    },

    async resent(endpointId: string, runId: string): Promise<void> {
      await pool.query('UPDATE recoveries SET resent = resent + 1 WHERE endpoint_id = $1 AND run_id = $2', [endpointId, runId]);
    },

    async finish(endpointId: string, runId: string): Promise<void> {
      await pool.query(
        'UPDATE recoveries SET finished_at = now() WHERE endpoint_id = $1 AND run_id = $2 AND finished_at IS NULL',
        [endpointId, runId],
      );
    },
  };
}

export type RecoveryStore = ReturnType<typeof createRecoveryStore>;
