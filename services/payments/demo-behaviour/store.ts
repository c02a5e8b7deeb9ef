import { withTransaction, type Pool } from '../../platform/db.js';
import { lockProjectList } from '../../platform/list-lock.js';
import type { Clock } from '../../platform/clock.js';
import type { CheckedScope as Scope } from '../../platform/request-guards.js';
import type { DemoBehaviour, DemoBehaviourSource, DemoSegmentKey } from '../../connectors/index.js';

// payments.demo_behaviours (migration 0019): one row per project, provider and segment. The demo
// connector reads a project's rows per attempt through a cache of CACHE_MS, dropped at once by a
// change made through this process; another replica sees a change within CACHE_MS.

/** How stale another replica's view of a change may be: an outage shows within a second. */
const CACHE_MS = 1_000;
/** Above this many cached projects the stale entries are dropped (a sandbox-wide bound on memory). */
const CACHE_PROJECTS = 1_000;

export interface DemoSegment {
  provider: string;
  paymentMethod: string;
  currency: string;
  /** A country, or '*' for any. */
  country: string;
}

export interface DemoBehaviourRecord extends DemoBehaviour {
  segment: DemoSegment;
  updatedAt: Date;
}

export interface BehaviourChange {
  approvalRate?: number;
  technicalErrorRate?: number;
  latencyMs?: number;
  /** Given: the outage's end (null ends one); absent: unchanged. */
  outageUntil?: Date | null;
  lateSuccessRate?: number;
}

const COLUMNS = `provider_code, payment_method, currency, country, approval_rate, technical_error_rate, latency_ms,
  outage_until, late_success_rate, updated_at`;

function record(r: Record<string, any>): DemoBehaviourRecord {
  return {
    segment: { provider: r.provider_code, paymentMethod: r.payment_method, currency: r.currency, country: r.country },
    approvalRate: r.approval_rate,
    technicalErrorRate: r.technical_error_rate,
    latencyMs: r.latency_ms,
    outageUntil: r.outage_until,
    lateSuccessRate: r.late_success_rate,
    updatedAt: r.updated_at,
  };
}

// A new segment starts as a demo provider without settings behaves: approving, quick, up, on time.
const UPSERT = `
  INSERT INTO demo_behaviours AS d (merchant_id, project_id, mode, provider_code, payment_method, currency, country,
    approval_rate, technical_error_rate, latency_ms, outage_until, late_success_rate, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, coalesce($8::double precision, 1), coalesce($9::double precision, 0),
    coalesce($10::integer, 0), $11::timestamptz, coalesce($14::double precision, 0), $13)
  ON CONFLICT (project_id, mode, provider_code, payment_method, currency, country) DO UPDATE SET
    approval_rate = coalesce($8::double precision, d.approval_rate),
    technical_error_rate = coalesce($9::double precision, d.technical_error_rate),
    latency_ms = coalesce($10::integer, d.latency_ms),
    outage_until = CASE WHEN $12::boolean THEN $11::timestamptz ELSE d.outage_until END,
    late_success_rate = coalesce($14::double precision, d.late_success_rate),
    updated_at = $13
  RETURNING ${COLUMNS}`;

export function createDemoBehaviourStore(pool: Pool, clock: Clock) {
  const cache = new Map<string, { at: number; rows: Promise<DemoBehaviourRecord[]> }>();

  async function list(scope: Scope): Promise<DemoBehaviourRecord[]> {
    const { rows } = await pool.query(
      `SELECT ${COLUMNS} FROM demo_behaviours WHERE project_id = $1 AND mode = $2 AND merchant_id = $3
       ORDER BY provider_code, payment_method, currency, country`, [scope.projectId, scope.mode, scope.merchantId]);
    return rows.map(record);
  }

  function cached(projectId: string): Promise<DemoBehaviourRecord[]> {
    const now = performance.now();
    const hit = cache.get(projectId);
    if (hit && now - hit.at < CACHE_MS) return hit.rows;
    if (cache.size >= CACHE_PROJECTS) for (const [k, v] of cache) if (now - v.at >= CACHE_MS) cache.delete(k);
    const rows = pool.query(`SELECT ${COLUMNS} FROM demo_behaviours WHERE project_id = $1 AND mode = 'test'`, [projectId])
      .then((r) => r.rows.map(record));
    // A failed read is not kept: the next attempt asks again.
    rows.catch(() => cache.delete(projectId));
    cache.set(projectId, { at: now, rows });
    return rows;
  }

  const source: DemoBehaviourSource = {
    now: () => clock.now(),
    async behaviourFor(key: DemoSegmentKey) {
      const rows = (await cached(key.projectId)).filter((r) => r.segment.provider === key.providerCode
        && r.segment.paymentMethod === key.methodType && r.segment.currency === key.currency);
      return rows.find((r) => r.segment.country === key.country) ?? rows.find((r) => r.segment.country === '*');
    },
  };

  return {
    source,
    list,
    /**
     * Sets a segment's behaviour; 'limit_reached' (nothing stored) when it is a new segment and the
     * project already has `max`. The scope's lock, held to the end of the transaction, makes
     * concurrent creations count one at a time.
     */
    async set(scope: Scope, segment: DemoSegment, change: BehaviourChange, max: number): Promise<DemoBehaviourRecord | 'limit_reached'> {
      const stored = await withTransaction(pool, async (tx) => {
        await lockProjectList(tx, 'payments.demo_behaviours', scope);
        const { rows: [count] } = await tx.query(
          `SELECT count(*)::int AS n, count(*) FILTER (WHERE provider_code = $4 AND payment_method = $5 AND currency = $6
             AND country = $7)::int AS same
           FROM demo_behaviours WHERE project_id = $1 AND mode = $2 AND merchant_id = $3`,
          [scope.projectId, scope.mode, scope.merchantId, segment.provider, segment.paymentMethod, segment.currency, segment.country]);
        if (count.same === 0 && count.n >= max) return 'limit_reached' as const;
        const { rows } = await tx.query(UPSERT, [
          scope.merchantId, scope.projectId, scope.mode, segment.provider, segment.paymentMethod, segment.currency,
          segment.country, change.approvalRate ?? null, change.technicalErrorRate ?? null, change.latencyMs ?? null,
          change.outageUntil ?? null, change.outageUntil !== undefined, clock.now(), change.lateSuccessRate ?? null,
        ]);
        return record(rows[0]);
      });
      cache.delete(scope.projectId);
      return stored;
    },
    /** Removes the segments matching every given field of `filter`; returns them. */
    async clear(scope: Scope, filter: Partial<DemoSegment>): Promise<DemoBehaviourRecord[]> {
      const { rows } = await pool.query(
        `DELETE FROM demo_behaviours WHERE project_id = $1 AND mode = $2 AND merchant_id = $3
           AND ($4::text IS NULL OR provider_code = $4) AND ($5::text IS NULL OR payment_method = $5)
           AND ($6::text IS NULL OR currency = $6) AND ($7::text IS NULL OR country = $7)
         RETURNING ${COLUMNS}`,
        [scope.projectId, scope.mode, scope.merchantId, filter.provider ?? null, filter.paymentMethod ?? null,
          filter.currency ?? null, filter.country ?? null]);
      cache.delete(scope.projectId);
      return rows.map(record);
    },
  };
}

export type DemoBehaviourStore = ReturnType<typeof createDemoBehaviourStore>;
