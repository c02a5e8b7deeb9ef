import { withTransaction, type Pool } from '../../services/platform/db.js';
import type { AdmissionChange } from './admission-change.js';
import { audit } from './keys.js';

/**
 * Per-project IP allow-lists (projects.ip_allowlist). Entries arrive already normalised by
 * gateway/edge/ip-allowlist.ts; authentication reads the column with the key, so a change holds
 * on the next request on every replica.
 */

export interface AllowlistView {
  project_id: string;
  /** Exact addresses or CIDR ranges in normal form; empty means no restriction. */
  entries: string[];
}

export function createAllowlistStore(pool: Pool, changed: (change: AdmissionChange) => void = () => undefined) {
  return {
    /** A project's allow-list, or undefined for an unknown project. */
    async getAllowlist(projectId: string): Promise<AllowlistView | undefined> {
      const { rows } = await pool.query('SELECT id, ip_allowlist FROM projects WHERE id = $1', [projectId]);
      return rows[0] ? { project_id: rows[0].id, entries: rows[0].ip_allowlist } : undefined;
    },

    /** Replaces a project's allow-list (empty clears it), audited; undefined for an unknown project. */
    async setAllowlist(
      projectId: string, entries: string[], actor: string, at: Date,
    ): Promise<AllowlistView | undefined> {
      const updated = await withTransaction(pool, async (tx) => {
        // The old list goes into the audit record, so read it under the row lock we update with.
        const before = await tx.query('SELECT merchant_id, ip_allowlist FROM projects WHERE id = $1 FOR UPDATE', [
          projectId,
        ]);
        if (before.rows.length === 0) return undefined;
        const { rows } = await tx.query('UPDATE projects SET ip_allowlist = $2 WHERE id = $1 RETURNING ip_allowlist', [
          projectId, entries,
        ]);
        await audit(tx, actor, 'project.allowlist_updated', at, {
          merchantId: before.rows[0].merchant_id, projectId, targetId: projectId,
          data: { from: before.rows[0].ip_allowlist, to: entries },
        });
        return { project_id: projectId, entries: rows[0].ip_allowlist };
      });
      // After the commit: a lookup under way can no longer keep what it read before it.
      if (updated) changed({ kind: 'project', id: projectId });
      return updated;
    },
  };
}

export type AllowlistStore = ReturnType<typeof createAllowlistStore>;
