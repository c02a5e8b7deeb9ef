import { newSecret, withTransaction, type Pool, type Queryable } from '../platform/index.js';
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
}

export interface EndpointChanges {
  url?: string;
  events?: string[];
  description?: string;
}

const COLUMNS = 'id, url, events, enabled, description, created_at, updated_at';
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
    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))',
      [`webhooks.endpoints:${scope.merchantId}:${scope.projectId}:${scope.mode}`]);
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
    async create(scope: Scope, input: { url: string; events: string[]; description?: string }, now: Date) {
      const url = checkUrl(input.url, scope.mode);
      const events = normaliseEvents(input.events);
      const description = checkDescription(input.description);
      const secret = newSecret('whsec_', 32);
      const endpoint = await withTransaction(pool, async (tx) => {
        await refuseAboveCap(tx, scope);
        return one(tx,
          `INSERT INTO endpoints (id, merchant_id, project_id, mode, url, events, enabled, description, secret, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, true, $7, $8, $9, $9) RETURNING ${COLUMNS}`,
          [endpointId(now), scope.merchantId, scope.projectId, scope.mode, url, events, description, box.seal(secret), now], '');
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
      return one(pool,
        `UPDATE endpoints SET url = COALESCE($5, url), events = COALESCE($6, events),
           description = COALESCE($7, description), updated_at = $8
         WHERE ${where} RETURNING ${COLUMNS}`,
        [...keys(scope, id), url, events, description, now], id);
    },

    /**
     * Disabling parks the endpoint's unfinished deliveries (next attempt 'infinity': never due, so
     * they cannot crowd the dispatchers' window); enabling makes them due at once, within the cap.
     */
    setEnabled: (scope: Scope, id: string, enabled: boolean, now: Date) => withTransaction(pool, async (tx) => {
      if (enabled) await refuseAboveCap(tx, scope, id);
      return one(tx,
        `WITH endpoint AS (
           UPDATE endpoints SET enabled = $5, updated_at = $6 WHERE ${where} RETURNING ${COLUMNS}
         ), held AS (
           UPDATE deliveries SET next_attempt_at = CASE WHEN $5 THEN $6 ELSE 'infinity' END, updated_at = $6
           WHERE endpoint_id = (SELECT id FROM endpoint) AND status IN ('pending', 'failed')
             AND (next_attempt_at = 'infinity') = $5
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
