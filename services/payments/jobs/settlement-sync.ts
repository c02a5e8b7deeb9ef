import { create } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import type { LedgerService } from '../../../proto/gen/svc/ledger/v1/ledger_pb.js';
import { ProviderSettlementSchema } from '../../../proto/gen/svc/payments/v1/provider_settlements_pb.js';
import type { ProviderAccount, ProviderAccountsService } from '../../../proto/gen/svc/routing/v1/provider_accounts_pb.js';
import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/db.js';
import { withDeadline } from '../../platform/deadline.js';
import { every } from '../../platform/every.js';
import type { Logger } from '../../platform/logger.js';
import type { Connector, ConnectorRegistry } from '../../connectors/index.js';
import type { ProviderChecks } from '../../connectors/provider-definition.js';
import { settlementReportOf } from '../../contract/ledger-settlement-report.js';
import { settlementMessages, type SettlementLookups } from '../provider-settlements/index.js';

/**
 * Providers' settlements into the ledger without an operator (SETTLEMENT_SYNC_INTERVAL_MS):
 * what `svc settlement sync` does for one account, done once per interval for every connected
 * (credentials stored here), active account of every provider whose definition has the
 * settlementSync capability. Every replica runs the loop; a sync is claimed
 * by moving the account's due_at a whole interval ahead in one statement (settlement_syncs), so
 * two replicas never run the same account's sync in one interval, and a restart finds it not due.
 * A claimed sync that fails (the provider or the ledger unreachable) is recorded and tried again
 * at the next interval; it never holds up the other accounts. The ledger's one ingestion makes
 * batches already ingested change nothing, so the payouts of the look-back are read again safely.
 */

export interface SettlementSyncDeps {
  pool: Pool;
  connectors: ConnectorRegistry;
  /** The providers' definitions: those with capabilities.settlementSync are synced. */
  providers: ReadonlyArray<Pick<ProviderChecks, 'code' | 'capabilities'>>;
  accounts: Pick<Client<typeof ProviderAccountsService>, 'getProviderAccount'>;
  ledger: Pick<Client<typeof LedgerService>, 'ingestSettlementReports'>;
  lookups: SettlementLookups;
  clock: Clock;
  logger: Logger;
  intervalMs: number;
  /** A sync makes a request per payout and page: the same minute as the operator's. */
  listTimeoutMs: number;
}

/** At most this long between looks for due accounts, so a short interval is kept and a long one is not overslept. */
const MAX_TICK_MS = 60_000;

/**
 * Payouts Stripe created this long before the last sync are asked for again: one still in transit
 * then (Stripe pays out within days) is read once more when paid.
 */
const LOOK_BACK_MS = 14 * 86_400_000;

export function createSettlementSync(deps: SettlementSyncDeps) {
  const { pool, clock } = deps;

  /** Claims the account's sync due at `now`; the last successful sync's time when claimed, else undefined. */
  async function claim(accountId: string, now: Date): Promise<{ syncedAt: Date | null } | undefined> {
    const { rows } = await pool.query(
      `INSERT INTO settlement_syncs (provider_account_id, due_at, claimed_at) VALUES ($1, $2, $3)
       ON CONFLICT (provider_account_id) DO UPDATE SET due_at = EXCLUDED.due_at, claimed_at = EXCLUDED.claimed_at
       WHERE settlement_syncs.due_at <= EXCLUDED.claimed_at
       RETURNING synced_at`,
      [accountId, new Date(now.getTime() + deps.intervalMs), now],
    );
    return rows.length === 0 ? undefined : { syncedAt: rows[0].synced_at as Date | null };
  }

  async function syncAccount(
    providerCode: string, connector: Connector, account: ProviderAccount, syncedAt: Date | null,
  ): Promise<{ references: string[]; created: number }> {
    const since = syncedAt ? new Date(syncedAt.getTime() - LOOK_BACK_MS) : undefined;
    const listed = await withDeadline(deps.listTimeoutMs, (signal) => connector.listSettlements!({
      account: { providerCode, id: account.id }, since, signal,
    }));
    const messages = await settlementMessages(deps.lookups, account.id, listed);
    const reports = messages.map((m) => settlementReportOf(account, create(ProviderSettlementSchema, m)));
    const { results } = reports.length === 0 ? { results: [] } : await deps.ledger.ingestSettlementReports({ reports });
    return { references: listed.map((s) => s.reference), created: results.filter((r) => r.changed).length };
  }

  /** One look: syncs every due account this replica claims, provider by provider; returns how many synced. */
  async function run(): Promise<number> {
    let synced = 0;
    for (const p of deps.providers) {
      if (p.capabilities.settlementSync) synced += await runProvider(p.code);
    }
    return synced;
  }

  async function runProvider(providerCode: string): Promise<number> {
    const connector = deps.connectors.forProvider(providerCode);
    if (!connector?.listSettlements) return 0;
    const { rows } = await pool.query(
      `SELECT c.provider_account_id AS id FROM provider_credentials c
       LEFT JOIN settlement_syncs s USING (provider_account_id)
       WHERE c.provider_code = $1 AND (s.due_at IS NULL OR s.due_at <= $2)
       ORDER BY c.provider_account_id`,
      [providerCode, clock.now()],
    );
    let synced = 0;
    for (const { id } of rows as Array<{ id: string }>) {
      try {
        // A disabled account is not claimed: it is looked at again at each tick, and synced once enabled.
        const { account } = await deps.accounts.getProviderAccount({ id });
        if (!account || account.status !== 'active') continue;
        const now = clock.now();
        const claimed = await claim(id, now);
        if (!claimed) continue;
        try {
          const done = await syncAccount(providerCode, connector, account, claimed.syncedAt);
          await pool.query(
            `UPDATE settlement_syncs SET synced_at = $2, synced_references = $3, created = $4 WHERE provider_account_id = $1`,
            [id, now, done.references, done.created],
          );
          synced++;
        } catch (err) {
          // The connector's and the ledger's messages never quote credentials.
          await pool.query(
            'UPDATE settlement_syncs SET failed_at = $2, last_error = $3 WHERE provider_account_id = $1',
            [id, now, (err as Error).message.slice(0, 1000)],
          );
          throw err;
        }
      } catch (err) {
        deps.logger.warn({ providerAccountId: id, err: (err as Error).message }, 'scheduled settlement sync failed, next at its interval');
      }
    }
    return synced;
  }

  const loop = every(Math.min(deps.intervalMs, MAX_TICK_MS), 'settlement sync', deps.logger, run);
  return {
    run,
    start(): void {
      if (deps.intervalMs > 0) loop.start();
    },
    stop: () => loop.stop(),
  };
}

export type SettlementSync = ReturnType<typeof createSettlementSync>;
