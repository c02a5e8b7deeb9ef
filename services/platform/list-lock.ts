import type { Queryable } from './db.js';

/**
 * Holds, to the end of the caller's transaction, the lock of one project's list in one mode
 * (`list` names it, e.g. "webhooks.endpoints"): the creations that count the list against its cap
 * (services/contract/project-caps.ts) take it first, so concurrent ones count one at a time. A
 * transaction-scoped advisory lock, not a row lock: the project's row lives in the gateway's schema,
 * and the lock is released by the transaction's end whatever happens.
 */
export async function lockProjectList(
  tx: Queryable, list: string, scope: { merchantId: string; projectId: string; mode: string },
): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))',
    [`${list}:${scope.merchantId}:${scope.projectId}:${scope.mode}`]);
}
