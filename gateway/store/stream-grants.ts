import type { Pool } from '../../services/platform/db.js';

/**
 * What an open event stream's key still grants, read for every stream a gateway holds in one
 * statement (routes/stream-guard.ts): a stream outlives the request that authenticated it, so
 * revocation and allow-list changes made on any replica reach it through this re-check.
 */
export function createStreamGrantStore(pool: Pool) {
  return {
    /** Each key still active, with its project's allow-list; a revoked or unknown key is absent. */
    async activeKeyAllowlists(keyIds: string[]): Promise<Map<string, string[]>> {
      const { rows } = await pool.query({
        name: 'gateway-stream-grants',
        text: `SELECT k.id, p.ip_allowlist FROM api_keys k JOIN projects p ON p.id = k.project_id
               WHERE k.id = ANY ($1::text[]) AND k.revoked_at IS NULL`,
        values: [keyIds],
      });
      return new Map(rows.map((r) => [r.id as string, r.ip_allowlist as string[]]));
    },
  };
}
