import { createHash } from 'node:crypto';
import type { Logger } from '../platform/logger.js';
import type { Pool } from '../platform/db.js';
import { DomainError } from '../contract/index.js';
import type { SettlementRecord } from './settlement-store.js';
import type { ReportItemType, SettlementReport } from './settlement-report.js';
import type { SettlementIngestion } from './settlements.js';
import { toTransaction } from './store.js';
import type { TransactionRecord } from './movements.js';

/**
 * The demo providers' settlement reports. A demo provider moves no money, so what it "settled" is
 * read from the ledger itself: every successful test-mode payment, refund and dispute movement at least
 * `cutoffMs` old (T+1 by default) and in no settlement yet, one batch per merchant scope, provider
 * account and currency, reported settled at the cycle's moment. Demo Beta also charges a
 * settlement fee per batch, so the sandbox shows a fee transaction. Reports go through the same
 * ingestion as a real provider's.
 */

/** The movements a demo provider settles: payments, refunds, and the money of the sandbox's disputes. */
const DEMO_SETTLED: readonly string[] = ['payment', 'refund', 'dispute', 'dispute_reversal'] satisfies ReportItemType[];

/** Per-batch settlement fees of the demo accounts, in minor units. */
export const DEMO_BATCH_FEES: Readonly<Record<string, bigint>> = { pac_demo_beta: 10n };

export function demoReference(scopeKey: string, providerAccountId: string, currency: string, ids: string[]): string {
  const digest = createHash('sha256').update([scopeKey, providerAccountId, currency, ...[...ids].sort()].join('|'));
  return `demo_stl_${digest.digest('hex').slice(0, 20)}`;
}

/** The batches a cycle at `asOf` reports, from the unsettled movements (pure, tested beside this file). */
export function demoReports(movements: TransactionRecord[], asOf: Date, cutoffMs: number): SettlementReport[] {
  const cutoff = new Date(asOf.getTime() - cutoffMs);
  const groups = new Map<string, TransactionRecord[]>();
  for (const t of movements) {
    if (t.scope.mode !== 'test' || t.status !== 'successful' || t.settlementId || !t.providerAccountId) continue;
    if (!DEMO_SETTLED.includes(t.type) || t.occurredAt > cutoff) continue;
    const key = JSON.stringify([t.scope.merchantId, t.scope.projectId, t.scope.mode, t.providerAccountId, t.currency]);
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  return [...groups].map(([key, items]) => {
    const first = items[0];
    const fee = DEMO_BATCH_FEES[first.providerAccountId!] ?? 0n;
    const fees = fee > 0n ? [{ amount: fee, description: 'Settlement fee' }] : [];
    const gross = items.reduce((a, t) => a + t.amount, 0n);
    const feeTotal = items.reduce((a, t) => a + t.feeAmount, 0n) + fee;
    return {
      scope: first.scope,
      providerAccountId: first.providerAccountId!,
      providerName: first.providerName,
      settlementEntity: first.providerAccountId,
      reference: demoReference(key, first.providerAccountId!, first.currency, items.map((t) => t.id)),
      currency: first.currency,
      status: 'settled' as const,
      periodStart: new Date(Math.min(...items.map((t) => t.occurredAt.getTime()))),
      periodEnd: cutoff,
      settledAt: asOf,
      items: items.map((t) => ({
        type: t.type as ReportItemType, entityId: t.entityId, amount: t.amount, feeAmount: t.feeAmount,
      })),
      fees,
      grossAmount: gross,
      feeAmount: feeTotal,
      netAmount: gross - feeTotal,
    };
  });
}

export interface DemoSettlementDeps {
  pool: Pool;
  ingestion: SettlementIngestion;
  logger: Logger;
  cutoffMs: number;
}

export function createDemoSettlement(deps: DemoSettlementDeps) {
  async function readUnsettled(asOf: Date): Promise<TransactionRecord[]> {
    const { rows } = await deps.pool.query(
      `SELECT * FROM transactions
       WHERE mode = 'test' AND status = 'successful' AND settlement_id IS NULL
         -- DEMO_SETTLED, written out as the transactions_unsettled index's predicate (migration 0007) so it is used.
         AND type IN ('payment', 'refund', 'dispute', 'dispute_reversal')
         AND provider_account_id IS NOT NULL AND occurred_at <= $1
         -- A late charge and its return (movement ids on a payment) net to zero and are not settled.
         AND (movement_id = '' OR entity_type = 'dispute')
       ORDER BY id`,
      [new Date(asOf.getTime() - deps.cutoffMs)],
    );
    return rows.map(toTransaction);
  }

  /** One cycle as of `asOf`: the settlements it created. Safe on many replicas at once. */
  async function runCycle(asOf: Date, at: Date): Promise<SettlementRecord[]> {
    const created: SettlementRecord[] = [];
    // A batch another replica's cycle overlapped is refused whole; reading again settles the rest.
    for (let round = 0; round < 3; round++) {
      let skipped = 0;
      for (const report of demoReports(await readUnsettled(asOf), asOf, deps.cutoffMs)) {
        try {
          const { settlement, changed } = await deps.ingestion.ingest(report, at);
          if (changed) created.push(settlement);
        } catch (err) {
          if (!(err instanceof DomainError)) throw err;
          skipped++;
          deps.logger.debug({ err: err.message, reference: report.reference }, 'demo settlement batch skipped');
        }
      }
      if (skipped === 0) break;
    }
    return created;
  }
  return { runCycle };
}

export type DemoSettlement = ReturnType<typeof createDemoSettlement>;
