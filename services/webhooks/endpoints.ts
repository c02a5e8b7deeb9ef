import { withTransaction, type Pool, type Queryable } from '../platform/db.js';
import { newSecret } from '../platform/ids.js';
import { lockProjectList } from '../platform/list-lock.js';
import { EVENT_TYPES, invalidField, serviceError, toConnectError } from '../contract/index.js';
import { limitReached, MAX_ENABLED_WEBHOOK_ENDPOINTS } from '../contract/project-caps.js';
import { endpointId } from './ids.js';
import type { SecretBox } from '../platform/secret-box.js';
import { endpointUrlProblem, type Mode, type UrlPolicy } from '../platform/net/index.js';

export interface Scope {
  merchantId: string;
  projectId: string;
  mode: Mode;
}

export interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  description: string | null;
  created_at: Date;
  updated_at: Date;
  max_per_second: number | null;
  disabled_reason: 'manual' | 'failing' | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  retry_after_until: Date | null;
}

export interface EndpointChanges {
  url?: string;
  events?: string[];
  description?: string;
  /** 0 removes the limit. */
  maxPerSecond?: number;
}

/** An endpoint's recent record (EndpointHealth): attempts of the last day, what waits, and when. */
export interface EndpointHealth {
  attempts: number;
  succeeded: number;
  pending: number;
  nextRetryAt: Date | null;
}

/** A disabled endpoint whose project's owners are to be told (the gateway mails them). */
export interface EndpointNotice {
  endpoint: EndpointRow;
  merchantId: string;
  projectId: string;
  mode: Mode;
}

const COLUMNS = `id, url, events, enabled, description, created_at, updated_at, max_per_second, disabled_reason, disabled_at,
  failing_since, retry_after_until`;
/** Deliveries per second an endpoint may be limited to. */
export const MAX_RATE = 10_000;
const HEALTH_WINDOW_MS = 24 * 3_600_000;
const NOTICE_LEASE_MS = 10 * 60_000;
const MAX_DESCRIPTION = 500;
const KNOWN = new Set<string>(EVENT_TYPES);

const notFound = (id: string) => serviceError('resource_not_found', `No webhook endpoint ${id}`, { param: 'id' });

/** `*` alone, or known event types (deduplicated, in the contract's order). */
export function normaliseEvents(events: string[]): string[] {
  if (events.length === 0) throw invalidField('events', 'events must list event types, or "*" for all of them');
  if (events.includes('*')) {
    if (events.length > 1) throw invalidField('events', '"*" subscribes to every event type and cannot be combined with others');
    return ['*'];
  }
  const unknown = events.find((e) => !KNOWN.has(e));
  if (unknown !== undefined) {
    throw invalidField('events', `"${unknown}" is not an event type; known types: ${EVENT_TYPES.join(', ')}`);
  }
  return EVENT_TYPES.filter((t) => events.includes(t));
}

/** Endpoints of one merchant's project and mode; secrets leave only through create and rotate. */
export function createEndpointStore(pool: Pool, box: SecretBox, policy: UrlPolicy) {
  function checkUrl(url: string, mode: Mode): string {
    const problem = endpointUrlProblem(url, mode, policy);
    if (problem !== undefined) throw invalidField('url', `url: ${problem}`);
    return url;
  }

  function checkRate(rate: number | undefined): number | null {
    if (rate === undefined || rate === 0) return null;
    if (!Number.isInteger(rate) || rate < 0 || rate > MAX_RATE) {
      throw invalidField('max_deliveries_per_second', `max_deliveries_per_second must be an integer from 1 to ${MAX_RATE}, or 0 for no limit`);
    }
    return rate;
  }

  function checkDescription(description: string | undefined): string | null {
    if (description === undefined) return null;
    if (description.length > MAX_DESCRIPTION) throw invalidField('description', `description must be at most ${MAX_DESCRIPTION} characters`);
    return description;
  }

  async function one(db: Queryable, sql: string, params: unknown[], id: string): Promise<EndpointRow> {
    const { rows } = await db.query(sql, params);
    if (!rows[0]) throw notFound(id);
    return rows[0];
  }

  const where = 'id = $1 AND merchant_id = $2 AND project_id = $3 AND mode = $4';
  const keys = (scope: Scope, id: string) => [id, scope.merchantId, scope.projectId, scope.mode];

  /**
   * Refuses one more enabled endpoint when the scope has MAX_ENABLED_WEBHOOK_ENDPOINTS. The scope's
   * lock (held to the end of the caller's transaction) makes concurrent creations count one at a time.
   */
  async function refuseAboveCap(tx: Queryable, scope: Scope, except?: string): Promise<void> {
    await lockProjectList(tx, 'webhooks.endpoints', scope);
    const { rows } = await tx.query(
      `SELECT count(*)::int AS n FROM endpoints
       WHERE merchant_id = $1 AND project_id = $2 AND mode = $3 AND enabled AND id <> $4`,
      [scope.merchantId, scope.projectId, scope.mode, except ?? ''],
    );
    if (rows[0].n >= MAX_ENABLED_WEBHOOK_ENDPOINTS) {
      throw toConnectError(limitReached(`enabled ${scope.mode} webhook endpoints`, MAX_ENABLED_WEBHOOK_ENDPOINTS,
        'disable one it no longer uses first.'));
    }
  }

  return {
    async create(scope: Scope, input: { url: string; events: string[]; description?: string; maxPerSecond?: number }, now: Date) {
      const url = checkUrl(input.url, scope.mode);
      const events = normaliseEvents(input.events);
      const description = checkDescription(input.description);
      const rate = checkRate(input.maxPerSecond);
      const secret = newSecret('whsec_', 32);
      const endpoint = await withTransaction(pool, async (tx) => {
        await refuseAboveCap(tx, scope);
        return one(tx,
          `INSERT INTO endpoints (id, merchant_id, project_id, mode, url, events, enabled, description, secret, created_at,
             updated_at, max_per_second)
           VALUES ($1, $2, $3, $4, $5, $6, true, $7, $8, $9, $9, $10) RETURNING ${COLUMNS}`,
          [endpointId(now), scope.merchantId, scope.projectId, scope.mode, url, events, description, box.seal(secret), now,
            rate], '');
      });
      return { endpoint, secret };
    },

    async list(scope: Scope): Promise<EndpointRow[]> {
      const { rows } = await pool.query(
        `SELECT ${COLUMNS} FROM endpoints WHERE merchant_id = $1 AND project_id = $2 AND mode = $3 ORDER BY id`,
        [scope.merchantId, scope.projectId, scope.mode],
      );
      return rows;
    },

    get: (scope: Scope, id: string) => one(pool, `SELECT ${COLUMNS} FROM endpoints WHERE ${where}`, keys(scope, id), id),

    async update(scope: Scope, id: string, changes: EndpointChanges, now: Date): Promise<EndpointRow> {
      const url = changes.url === undefined ? null : checkUrl(changes.url, scope.mode);
      const events = changes.events === undefined ? null : normaliseEvents(changes.events);
      const description = checkDescription(changes.description);
      const rate = checkRate(changes.maxPerSecond);
      return one(pool,
        `UPDATE endpoints SET url = COALESCE($5, url), events = COALESCE($6, events),
           description = COALESCE($7, description), updated_at = $8,
           max_per_second = CASE WHEN $9 THEN $10 ELSE max_per_second END
         WHERE ${where} RETURNING ${COLUMNS}`,
        [...keys(scope, id), url, events, description, now, changes.maxPerSecond !== undefined, rate], id);
    },

    /**
     * Disabling parks the endpoint's unfinished deliveries (next attempt 'infinity': never due, so
     * they cannot crowd the dispatchers' window); enabling makes them due at once, within the cap,
     * and starts its health afresh (a disable for failing is then over, and its notice moot).
     * Enabling a disabled endpoint makes every unfinished delivery due, parked or not: an attempt
     * in flight when the sweep disabled it may have been given a later retry instead of parked.
     */
    setEnabled: (scope: Scope, id: string, enabled: boolean, now: Date) => withTransaction(pool, async (tx) => {
      if (enabled) await refuseAboveCap(tx, scope, id);
      return one(tx,
        `WITH was AS (
           SELECT enabled FROM endpoints WHERE ${where}
         ), endpoint AS (
           UPDATE endpoints SET enabled = $5, updated_at = $6,
             disabled_reason = CASE WHEN $5 THEN NULL WHEN enabled THEN 'manual' ELSE disabled_reason END,
             disabled_at = CASE WHEN $5 THEN NULL WHEN enabled THEN $6 ELSE disabled_at END,
             failing_since = CASE WHEN $5 THEN NULL ELSE failing_since END,
             notice_pending = notice_pending AND NOT $5
           WHERE ${where} RETURNING ${COLUMNS}
         ), held AS (
           UPDATE deliveries SET next_attempt_at = CASE WHEN $5 THEN $6 ELSE 'infinity' END, updated_at = $6
           WHERE endpoint_id = (SELECT id FROM endpoint) AND status IN ('pending', 'failed')
             AND CASE WHEN $5 THEN next_attempt_at = 'infinity' OR NOT (SELECT enabled FROM was)
               ELSE next_attempt_at <> 'infinity' END
         )
         SELECT * FROM endpoint`,
        [...keys(scope, id), enabled, now], id);
    }),

    /**
     * Seals the secrets stored `plain:` before WEBHOOK_SECRET_KEY was set (with a key only; each row
     * only if unchanged meanwhile, so a rotation racing it wins). Returns how many were sealed.
     */
    async sealPlainSecrets(): Promise<number> {
      const { rows } = await pool.query(`SELECT id, secret FROM endpoints WHERE secret LIKE 'plain:%'`);
      let sealed = 0;
      for (const row of rows) {
        const sealedSecret = box.seal(box.open(row.secret));
        if (!sealedSecret.startsWith('plain:')) {
          const { rowCount } = await pool.query('UPDATE endpoints SET secret = $2 WHERE id = $1 AND secret = $3',
            [row.id, sealedSecret, row.secret]);
          sealed += rowCount ?? 0;
        }
      }
      return sealed;
    },

    /** Each endpoint's attempts of the last 24 hours and succeeded among them, its waiting deliveries and their earliest due time. */
    async health(ids: string[], now: Date): Promise<Map<string, EndpointHealth>> {
      // One statement, so one snapshot: an attempt recorded between two reads would show its
      // delivery both waiting and attempted, or neither.
      const { rows } = await pool.query(
        `WITH attempts AS (
           SELECT d.endpoint_id, count(*)::int AS attempts, count(*) FILTER (WHERE a.response_status BETWEEN 200 AND 299)::int AS succeeded
           FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
           WHERE a.started_at > $2 AND d.endpoint_id = ANY ($1) GROUP BY d.endpoint_id
         ), waiting AS (
           SELECT endpoint_id, count(*)::int AS pending,
             min(next_attempt_at) FILTER (WHERE status IN ('pending', 'failed') AND next_attempt_at <> 'infinity') AS next_retry_at
           FROM deliveries WHERE endpoint_id = ANY ($1) AND status IN ('pending', 'failed', 'delivering') GROUP BY endpoint_id
         )
         SELECT e.id AS endpoint_id, COALESCE(a.attempts, 0) AS attempts, COALESCE(a.succeeded, 0) AS succeeded,
           COALESCE(w.pending, 0) AS pending, w.next_retry_at
         FROM unnest($1::text[]) AS e(id)
         LEFT JOIN attempts a ON a.endpoint_id = e.id LEFT JOIN waiting w ON w.endpoint_id = e.id`,
        [ids, new Date(now.getTime() - HEALTH_WINDOW_MS)],
      );
      return new Map<string, EndpointHealth>(rows.map((r) => [r.endpoint_id, {
        attempts: r.attempts, succeeded: r.succeeded, pending: r.pending, nextRetryAt: r.next_retry_at,
      }]));
    },

    /**
     * Notices of endpoints disabled for failing not yet acknowledged, taken for NOTICE_LEASE_MS (a
     * gateway that could not mail leaves them to be taken again), at most `limit`.
     */
    async takeNotices(now: Date, limit: number): Promise<EndpointNotice[]> {
      const { rows } = await pool.query(
        `UPDATE endpoints SET notice_lease_until = $2
         WHERE id IN (SELECT id FROM endpoints WHERE notice_pending AND (notice_lease_until IS NULL OR notice_lease_until <= $1)
                      ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING ${COLUMNS}, merchant_id, project_id, mode`,
        [now, new Date(now.getTime() + NOTICE_LEASE_MS), limit],
      );
      return rows.map((r) => ({ endpoint: r, merchantId: r.merchant_id, projectId: r.project_id, mode: r.mode }));
    },

    async acknowledgeNotices(ids: string[]): Promise<void> {
      await pool.query('UPDATE endpoints SET notice_pending = false, notice_lease_until = NULL WHERE id = ANY ($1)', [ids]);
    },

    /** The old secret stops signing at once: a receiver must switch when it stores the new one. */
    async rotateSecret(scope: Scope, id: string, now: Date) {
      const secret = newSecret('whsec_', 32);
      const endpoint = await one(pool, `UPDATE endpoints SET secret = $5, updated_at = $6 WHERE ${where} RETURNING ${COLUMNS}`,
        [...keys(scope, id), box.seal(secret), now], id);
      return { endpoint, secret };
    },
  };
}

export type EndpointStore = ReturnType<typeof createEndpointStore>;
