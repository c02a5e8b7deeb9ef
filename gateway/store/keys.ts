import { prepared, withTransaction, type Pool, type Queryable } from '../../services/platform/db.js';
import { newId, newSecret, sha256Hex } from '../../services/platform/ids.js';
import { MAX_ACTIVE_API_KEYS } from '../../services/contract/project-caps.js';
import { auditAddress } from './audit-address.js';
import { verificationStatus } from '../../services/contract/verification-status.js';
import type { AdmissionChange } from './admission-change.js';

/** Merchants, projects, API keys and the audit log. */

export type { Mode } from '../../services/contract/enums.js';
import type { Mode } from '../../services/contract/enums.js';

export interface Identity {
  merchant: { id: string; name: string };
  /** ipAllowlist: exact addresses or CIDR ranges; empty means no restriction. */
  project: { id: string; name: string; ipAllowlist: string[] };
  mode: Mode;
  /** rateLimitPerMinute: this key's own ceiling, or null for the deployment's. */
  apiKey: { id: string; prefix: string; name: string; rateLimitPerMinute: number | null };
}

export interface ApiKeyView {
  id: string;
  object: 'api_key';
  project_id: string;
  mode: Mode;
  name: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  /** When a request last presented the key, to the minute (edge/last-use.ts); null if never. */
  last_used_at: string | null;
}

export const KEY_PREFIX = { test: 'svc_sk_test_', live: 'svc_sk_live_' } as const;
const DISPLAY_PREFIX_RANDOM_CHARS = 4;

export function keyView(r: Record<string, any>): ApiKeyView {
  return {
    id: r.id,
    object: 'api_key',
    project_id: r.project_id,
    mode: r.mode,
    name: r.name,
    prefix: r.prefix,
    created_at: new Date(r.created_at).toISOString(),
    revoked_at: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
    last_used_at: r.last_used_at ? new Date(r.last_used_at).toISOString() : null,
  };
}

/**
 * Every change an operator or a dashboard user makes is written to the audit log, in the change's
 * transaction, with the address of the request that made it (audit-address.ts).
 */
export async function audit(db: Queryable, actor: string, action: string, at: Date, ids: {
  merchantId?: string; projectId?: string; targetId?: string; data?: Record<string, unknown>;
}): Promise<void> {
  await db.query(
    `INSERT INTO audit_log (id, actor, action, merchant_id, project_id, target_id, data, created_at, client_address)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [newId('aud', at), actor, action, ids.merchantId ?? null, ids.projectId ?? null, ids.targetId ?? null,
      JSON.stringify(ids.data ?? {}), at, auditAddress()],
  );
}

/**
 * The identities behind presented secrets ($1, their sha256), a row for each one found: an unknown
 * or revoked key has none. `secret_hash` says which presented secret a row answers.
 */
const IDENTITIES_SQL = `SELECT k.secret_hash, k.id, k.name, k.prefix, k.mode, k.rate_limit_per_minute, p.id AS project_id,
    p.name AS project_name, p.ip_allowlist, m.id AS merchant_id, m.name AS merchant_name
  FROM api_keys k JOIN projects p ON p.id = k.project_id JOIN merchants m ON m.id = k.merchant_id
  WHERE k.secret_hash = ANY($1::text[]) AND k.revoked_at IS NULL`;

function toIdentity(r: Record<string, any>): Identity {
  return {
    merchant: { id: r.merchant_id, name: r.merchant_name },
    project: { id: r.project_id, name: r.project_name, ipAllowlist: r.ip_allowlist },
    mode: r.mode,
    apiKey: { id: r.id, prefix: r.prefix, name: r.name, rateLimitPerMinute: r.rate_limit_per_minute },
  };
}

/**
 * A merchant with its default project, audited, in the caller's transaction: the management API
 * creates one alone, dashboard registration together with its owner (store/users.ts).
 */
export async function insertMerchant(tx: Queryable, name: string, actor: string, at: Date) {
  const merchant = { id: newId('mer', at), name, verification_status: verificationStatus(null, null), created_at: at.toISOString() };
  const project = { id: newId('prj', at), name: 'Default project', created_at: at.toISOString() };
  await tx.query('INSERT INTO merchants (id, name, created_at) VALUES ($1, $2, $3)', [merchant.id, name, at]);
  await tx.query('INSERT INTO projects (id, merchant_id, name, created_at) VALUES ($1, $2, $3, $4)', [
    project.id, merchant.id, project.name, at,
  ]);
  await audit(tx, actor, 'merchant.created', at, { merchantId: merchant.id, projectId: project.id });
  return { merchant, project };
}

export function createKeyStore(pool: Pool, changed: (change: AdmissionChange) => void = () => undefined) {
  return {
    /** A merchant with its default project, audited. */
    async createMerchant(name: string, actor: string, at: Date) {
      return withTransaction(pool, (tx) => insertMerchant(tx, name, actor, at));
    },

    async verifyMerchant(merchantId: string, actor: string, at: Date) {
      return withTransaction(pool, async (tx) => {
        const { rows } = await tx.query(
          `UPDATE merchants SET verification_status = 'approved', verified_at = COALESCE(verified_at, $2)
           WHERE id = $1 RETURNING id, name, verification_status, verified_at, created_at`,
          [merchantId, at],
        );
        if (rows.length === 0) return undefined;
        // The submission waiting for this decision is decided with it (verification.ts).
        await tx.query(
          `UPDATE verification_submissions SET status = 'approved', decided_at = $2 WHERE merchant_id = $1 AND status = 'pending'`,
          [merchantId, at],
        );
        await audit(tx, actor, 'merchant.verified', at, { merchantId });
        const r = rows[0];
        return {
          id: r.id,
          name: r.name,
          verification_status: verificationStatus(r.verification_status, null),
          verified_at: new Date(r.verified_at).toISOString(),
          created_at: new Date(r.created_at).toISOString(),
        };
      });
    },

    /**
     * Creates a key and returns its secret, the only time it exists outside the caller's hands.
     * 'project_not_found', 'not_verified' and 'limit_reached' (MAX_ACTIVE_API_KEYS of the mode
     * are active) explain a refusal.
     */
    async createKey(projectId: string, mode: Mode, name: string, actor: string, at: Date) {
      return withTransaction(pool, async (tx) => {
        // Locking the merchant row orders key creation after a concurrent verification change; the
        // project row, after a concurrent creation, so two cannot both pass the count below.
        const { rows } = await tx.query(
          `SELECT p.merchant_id, m.verification_status FROM projects p JOIN merchants m ON m.id = p.merchant_id
           WHERE p.id = $1 FOR NO KEY UPDATE OF p FOR SHARE OF m`,
          [projectId],
        );
        if (rows.length === 0) return { refused: 'project_not_found' as const };
        if (mode === 'live' && rows[0].verification_status !== 'approved') return { refused: 'not_verified' as const };
        const active = await tx.query(
          'SELECT count(*)::int AS n FROM api_keys WHERE project_id = $1 AND mode = $2 AND revoked_at IS NULL',
          [projectId, mode],
        );
        if (active.rows[0].n >= MAX_ACTIVE_API_KEYS) return { refused: 'limit_reached' as const };
        const secret = newSecret(KEY_PREFIX[mode]);
        const id = newId('key', at);
        const prefix = secret.slice(0, KEY_PREFIX[mode].length + DISPLAY_PREFIX_RANDOM_CHARS);
        const inserted = await tx.query(
          `INSERT INTO api_keys (id, merchant_id, project_id, mode, name, prefix, secret_hash, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
          [id, rows[0].merchant_id, projectId, mode, name, prefix, sha256Hex(secret), at],
        );
        await audit(tx, actor, 'api_key.created', at, {
          merchantId: rows[0].merchant_id, projectId, targetId: id, data: { mode, name },
        });
        return { key: keyView(inserted.rows[0]), secret };
      });
    },

    /** Revokes a key for good; revoking twice keeps the first revocation time. */
    async revokeKey(keyId: string, actor: string, at: Date): Promise<ApiKeyView | undefined> {
      const revoked = await withTransaction(pool, async (tx) => {
        const { rows } = await tx.query(
          `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING *`,
          [keyId, at],
        );
        if (rows.length === 0) return undefined;
        await audit(tx, actor, 'api_key.revoked', at, {
          merchantId: rows[0].merchant_id, projectId: rows[0].project_id, targetId: keyId,
        });
        return keyView(rows[0]);
      });
      // After the commit: a lookup under way can no longer keep what it read before it.
      if (revoked) changed({ kind: 'key', id: keyId });
      return revoked;
    },

    async listKeys(projectId: string): Promise<ApiKeyView[] | undefined> {
      const project = await pool.query('SELECT 1 FROM projects WHERE id = $1', [projectId]);
      if (project.rowCount === 0) return undefined;
      const { rows } = await pool.query('SELECT * FROM api_keys WHERE project_id = $1 ORDER BY created_at, id', [
        projectId,
      ]);
      return rows.map(keyView);
    },

    /** The merchant owning a project, or undefined for an unknown project. */
    async projectMerchant(projectId: string): Promise<string | undefined> {
      const { rows } = await pool.query('SELECT merchant_id FROM projects WHERE id = $1', [projectId]);
      return rows[0]?.merchant_id;
    },

    /** Audits a change made in another part (e.g. routing rules kept by routing-risk). */
    async recordAudit(actor: string, action: string, at: Date, ids: Parameters<typeof audit>[4]): Promise<void> {
      await audit(pool, actor, action, at, ids);
    },

    /** The oldest project and its merchant: the one a local install's first start made. */
    async firstProject(): Promise<{ id: string; merchantId: string } | undefined> {
      const { rows } = await pool.query('SELECT id, merchant_id FROM projects ORDER BY created_at, id LIMIT 1');
      return rows[0] && { id: rows[0].id, merchantId: rows[0].merchant_id };
    },

    /** The identities behind these secret hashes, by hash; unknown and revoked keys are absent. */
    async identitiesByHash(hashes: string[]): Promise<Map<string, Identity>> {
      const { rows } = await pool.query(prepared(IDENTITIES_SQL, [hashes]));
      return new Map(rows.map((r) => [r.secret_hash as string, toIdentity(r)]));
    },

    async hasMerchants(): Promise<boolean> {
      const { rowCount } = await pool.query('SELECT 1 FROM merchants LIMIT 1');
      return (rowCount ?? 0) > 0;
    },
  };
}

export type KeyStore = ReturnType<typeof createKeyStore>;
