import type { Pool } from '../../platform/db.js';
import { withDeadline } from '../../platform/deadline.js';
import { every } from '../../platform/every.js';
import type { Logger } from '../../platform/logger.js';
import type { ConnectorRegistry, ProviderNotification } from '../../connectors/index.js';

/**
 * Providers' disputes found without their notification (DISPUTE_SYNC_INTERVAL_MS, hourly at most):
 * every connected account (credentials stored: a disabled account's payments can still be
 * disputed) of every provider whose connector lists disputes is asked, once per interval, for the
 * dispute notifications it made since a little before the last sync that succeeded. They go
 * through the notifications' one way in (the receiver's take): recorded once per event id and
 * account, so one the webhook brought is not applied again, and applied through applyProviderView,
 * which never moves a dispute backwards. A sync is claimed by moving the account's due_at a whole
 * interval ahead on the database's clock (dispute_syncs), so replicas never run one account twice
 * in an interval; one that fails is recorded and tried at the next interval, never holding up others.
 */
export interface DisputeSyncDeps {
  pool: Pool;
  connectors: ConnectorRegistry;
  providerCodes: readonly string[];
  /** The notifications' one way in: how many were new, and how many of those changed a dispute. */
  take(providerCode: string, accountId: string, notifications: ProviderNotification[]): Promise<{ fresh: number; applied: number }>;
  logger: Logger;
  intervalMs: number;
  listTimeoutMs: number;
}

/** At most this long between looks for due accounts. */
const MAX_TICK_MS = 60_000;
/** A sync asks from this long before the last one started: a notification the provider made late in its clock is not skipped. */
const OVERLAP_MS = 15 * 60_000;
/** An account's first sync asks this far back (disputes opened shortly before it was connected, or before this sync existed). */
const FIRST_LOOK_BACK_MS = 7 * 86_400_000;

export function createDisputeSync(deps: DisputeSyncDeps) {
  const { pool } = deps;
  // Only providers whose connector can list disputes (not Adyen's, which has no such call).
  const codes = deps.providerCodes.filter((code) => deps.connectors.forProvider(code)?.listDisputes);

  /** Claims the account's due sync on the database's clock; the moment to ask from when claimed. */
  async function claim(accountId: string): Promise<{ since: Date; startedAt: Date } | undefined> {
    const { rows } = await pool.query(
      `INSERT INTO dispute_syncs (provider_account_id, due_at, claimed_at) VALUES ($1, now() + make_interval(secs => $2::float8 / 1000), now())
       ON CONFLICT (provider_account_id) DO UPDATE SET due_at = EXCLUDED.due_at, claimed_at = EXCLUDED.claimed_at
       WHERE dispute_syncs.due_at <= EXCLUDED.claimed_at
       RETURNING claimed_at,
         COALESCE(synced_at - make_interval(secs => $3::float8 / 1000), claimed_at - make_interval(secs => $4::float8 / 1000)) AS since`,
      [accountId, deps.intervalMs, OVERLAP_MS, FIRST_LOOK_BACK_MS],
    );
    return rows[0] && { since: rows[0].since as Date, startedAt: rows[0].claimed_at as Date };
  }

  async function syncAccount(providerCode: string, accountId: string): Promise<boolean> {
    const connector = deps.connectors.forProvider(providerCode);
    if (!connector?.listDisputes) return false;
    const claimed = await claim(accountId);
    if (!claimed) return false;
    try {
      const listed = await withDeadline(deps.listTimeoutMs, (signal) => connector.listDisputes!({
        account: { providerCode, id: accountId }, since: claimed.since, signal,
      }));
      const { applied } = await deps.take(providerCode, accountId, listed);
      await pool.query(
        'UPDATE dispute_syncs SET synced_at = $2, listed = $3, found = $4 WHERE provider_account_id = $1',
        [accountId, claimed.startedAt, listed.length, applied],
      );
      // A change no notification had made: one was lost (or is late).
      if (applied > 0) deps.logger.warn({ providerAccountId: accountId, applied }, 'dispute sync changed disputes no notification had');
      return true;
    } catch (err) {
      // The connector's messages never quote credentials.
      await pool.query(
        'UPDATE dispute_syncs SET failed_at = now(), last_error = $2 WHERE provider_account_id = $1',
        [accountId, (err as Error).message.slice(0, 1000)],
      );
      throw err;
    }
  }

  /** One look: syncs every due account this replica claims; returns how many synced. */
  async function run(): Promise<number> {
    const { rows } = await pool.query(
      `SELECT c.provider_account_id AS id, c.provider_code AS code FROM provider_credentials c
       LEFT JOIN dispute_syncs s USING (provider_account_id)
       WHERE c.provider_code = ANY($1) AND (s.due_at IS NULL OR s.due_at <= now())
       ORDER BY c.provider_account_id`,
      [codes],
    );
    let synced = 0;
    for (const { id, code } of rows as Array<{ id: string; code: string }>) {
      try {
        if (await syncAccount(code, id)) synced++;
      } catch (err) {
        deps.logger.warn({ providerAccountId: id, err: (err as Error).message }, 'dispute sync failed, next at its interval');
      }
    }
    return synced;
  }

  const loop = every(Math.min(deps.intervalMs, MAX_TICK_MS), 'dispute sync', deps.logger, run);
  return {
    run,
    start(): void {
      if (deps.intervalMs > 0) loop.start();
    },
    stop: () => loop.stop(),
  };
}
