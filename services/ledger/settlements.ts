import { settlementJson } from '../contract/index.js';
import { isOneOf, SETTLEMENT_STATUSES } from '../contract/enums.js';
import { withTransaction, type Pool, type Queryable } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { enqueueEvent } from '../platform/outbox.js';
import { DomainError, invalidField } from '../contract/index.js';
import { settlementId } from './ids.js';
import { settlementLines } from './journal.js';
import { isReportItemType, MATCHES, type SettlementReport } from './settlement-report.js';
import {
  addItems, derivedTransactions, findByReference, insertSettlement, updateStatus,
  type SettlementRecord,
} from './settlement-store.js';
import { insertTransaction, postEntry, postTransaction, scopeValues, toTransaction } from './store.js';
import type { TransactionRecord } from './movements.js';
import { isDisputeItem, matchDisputeItem } from './settlement-disputes.js';
import { settlementToProto } from './to-proto.js';

/**
 * Ingestion of provider settlement reports: the one path every provider's report takes, the demo
 * providers' (demo-settlement.ts) and a real provider's file or API once parsed into a
 * SettlementReport (docs/ledger.md, "Settlement reports"). Idempotent by provider account and
 * reference: a report ingested again changes nothing, and a pending batch may later be reported
 * settled or failed.
 */

const sum = (values: bigint[]) => values.reduce((a, b) => a + b, 0n);


/** The report's own consistency, before anything is read: [param, message] of the first problem. */
export function reportProblem(r: SettlementReport): [string, string] | undefined {
  if (!isOneOf(SETTLEMENT_STATUSES, r.status)) return ['status', 'status must be pending, settled or failed'];
  if (!/^[A-Z]{3}$/.test(r.currency)) return ['currency', 'currency must be an upper-case ISO 4217 code'];
  if (!r.providerAccountId) return ['provider_account_id', 'provider_account_id is required'];
  if (!r.reference) return ['reference', 'reference is required'];
  if (Number.isNaN(r.periodStart.getTime())) return ['period_start', 'period_start is required'];
  if (Number.isNaN(r.periodEnd.getTime())) return ['period_end', 'period_end is required'];
  if (r.periodStart > r.periodEnd) return ['period_start', 'period_start is after period_end'];
  if (r.items.length === 0 && r.fees.length === 0) return ['items', 'a report settles at least one item or fee'];
  for (const [i, item] of r.items.entries()) {
    if (!isReportItemType(item.type)) {
      return [`items[${i}].type`, 'type must be payment, refund, refund_reversal, dispute or dispute_reversal'];
    }
    if (!item.entityId && !item.providerReference && !(isDisputeItem(item) && item.paymentReference)) {
      return [`items[${i}]`, 'an item names the movement by entity_id or provider_reference (a dispute item also by payment_reference)'];
    }
    if (item.amount * MATCHES[item.type].sign < 0n) {
      return [`items[${i}].amount`, 'amounts are signed as in the ledger: refunds and dispute withdrawals negative, the rest positive'];
    }
  }
  const gross = sum(r.items.map((i) => i.amount));
  const fees = sum(r.items.map((i) => i.feeAmount)) + sum(r.fees.map((f) => f.amount));
  if (r.grossAmount !== gross) return ['gross_amount', `gross_amount ${r.grossAmount} is not the items' sum ${gross}`];
  if (r.feeAmount !== fees) return ['fee_amount', `fee_amount ${r.feeAmount} is not the items' and fees' sum ${fees}`];
  if (r.netAmount !== gross - fees) return ['net_amount', 'net_amount must be gross_amount - fee_amount'];
  return undefined;
}

/**
 * The ledger's movement each item names; a movement it has not recorded (yet) refuses the report.
 * A dispute's movements are matched in settlement-disputes.ts (a dispute may have several of a kind).
 */
async function matchItems(tx: Queryable, r: SettlementReport): Promise<TransactionRecord[]> {
  const matched: TransactionRecord[] = [];
  for (const [i, item] of r.items.entries()) {
    if (isDisputeItem(item)) {
      matched.push(await matchDisputeItem(tx, r, item, i, matched.map((t) => t.id)));
      continue;
    }
    const match = MATCHES[item.type];
    const { rows } = await tx.query(
      `SELECT * FROM transactions
       WHERE merchant_id = $1 AND project_id = $2 AND mode = $3 AND currency = $4 AND type = $5 AND entity_type = $6
         AND status = 'successful' AND movement_id = '' AND (entity_id = $7 OR provider_reference = $8) FOR UPDATE`,
      [...scopeValues(r.scope), r.currency, match.type, match.entityType, item.entityId ?? null, item.providerReference ?? null],
    );
    if (rows.length !== 1) {
      const what = item.type === 'refund_reversal' ? 'reversal of the failed refund' : item.type;
      throw invalidField(`items[${i}]`, `no single successful ${what} ${item.entityId ?? item.providerReference} in ${r.currency} ` +
        'is recorded for this scope yet; ingest the report again once the ledger has it');
    }
    const t = toTransaction(rows[0]);
    if (t.settlementId) throw invalidField(`items[${i}]`, `${t.entityId} is already settled by ${t.settlementId}`);
    if (matched.some((m) => m.id === t.id)) throw invalidField(`items[${i}]`, `${t.entityId} appears twice in the report`);
    matched.push(t);
  }
  return matched;
}

/** Settled: the fee and adjustment transactions count, and the provider's net moves to the settled funds. */
async function settle(tx: Queryable, s: SettlementRecord, derived: TransactionRecord[], at: Date): Promise<void> {
  for (const t of derived) {
    await tx.query(`UPDATE transactions SET status = 'successful' WHERE id = $1`, [t.id]);
    await postTransaction(tx, { ...t, status: 'successful' }, at);
  }
  await postEntry(tx, s.scope, s.currency, 'settlement', { settlementId: s.id }, settlementLines(s.netAmount, s.providerAccountId), at);
}

/** Failed: the provider did not pay; its movements are awaiting settlement again, in a later batch. */
async function fail(tx: Queryable, s: SettlementRecord, derived: TransactionRecord[]): Promise<void> {
  await tx.query(`UPDATE transactions SET status = 'failed' WHERE id = ANY($1)`, [derived.map((t) => t.id)]);
  await tx.query(
    `UPDATE transactions SET settlement_id = NULL WHERE settlement_id = $1 AND entity_type <> 'settlement'`, [s.id],
  );
}

export interface IngestResult {
  settlement: SettlementRecord;
  /** False when the same report (reference and status) had been ingested before. */
  changed: boolean;
}

const lockKey = (r: SettlementReport) =>
  `settlement:${r.scope.merchantId}:${r.scope.projectId}:${r.scope.mode}:${r.providerAccountId}:${r.reference}`;

export function createSettlementIngestion(deps: { pool: Pool; relay: { kick(): void } }) {
  /**
   * Several reports in one transaction, all or none (the batches of one provider file): a refused
   * one refuses them all, its error naming `reports[i]` when there are several.
   */
  async function ingestAll(reports: SettlementReport[], at: Date): Promise<IngestResult[]> {
    const named = (i: number, err: unknown) => (reports.length > 1 && err instanceof DomainError
      ? new DomainError(err.code, `reports[${i}] (${reports[i].reference}): ${err.message}`, {
        ...err.options, param: `reports[${i}]${err.options.param ? `.${err.options.param}` : ''}`,
      })
      : err);
    for (const [i, r] of reports.entries()) {
      const problem = reportProblem(r);
      if (problem) throw named(i, invalidField(problem[0], problem[1]));
    }
    const results = await withTransaction(deps.pool, async (tx) => {
      // Two deliveries of one report (two replicas, a retried import) take turns; locks in one order.
      for (const key of [...new Set(reports.map(lockKey))].sort()) {
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
      }
      const out: IngestResult[] = [];
      for (const [i, r] of reports.entries()) {
        try {
          const existing = await findByReference(tx, r.scope, r.providerAccountId, r.reference);
          out.push(existing ? await transition(tx, existing, r, at) : { settlement: await create(tx, r, at), changed: true });
        } catch (err) {
          throw named(i, err);
        }
      }
      return out;
    });
    if (results.some((r) => r.changed)) deps.relay.kick();
    return results;
  }

  async function ingest(r: SettlementReport, at: Date): Promise<IngestResult> {
    return (await ingestAll([r], at))[0];
  }

  async function transition(tx: Queryable, s: SettlementRecord, r: SettlementReport, at: Date): Promise<IngestResult> {
    if (s.status === r.status) return { settlement: s, changed: false };
    if (s.status !== 'pending') {
      throw new DomainError('invalid_state_transition', `Settlement ${s.reference} is already ${s.status}`, { param: 'status' });
    }
    if (s.netAmount !== r.netAmount || s.grossAmount !== r.grossAmount) {
      throw invalidField('net_amount', `Settlement ${s.reference} was reported with other totals before; a batch does not change`);
    }
    const derived = await derivedTransactions(tx, s);
    await updateStatus(tx, s, r.status, r.status === 'settled' ? (r.settledAt ?? at) : null, at);
    if (r.status === 'settled') await settle(tx, s, derived, at);
    else await fail(tx, s, derived);
    return { settlement: s, changed: true };
  }

  async function create(tx: Queryable, r: SettlementReport, at: Date): Promise<SettlementRecord> {
    const matched = await matchItems(tx, r);
    // What the provider reported beyond the ledger's own figures: a gross difference is an
    // adjustment, a fee difference and batch fees are a fee transaction of the settlement.
    const adjustment = r.grossAmount - sum(matched.map((t) => t.amount));
    const extraFees = r.feeAmount - sum(matched.map((t) => t.feeAmount));
    const derivedCount = (adjustment !== 0n ? 1 : 0) + (extraFees !== 0n ? 1 : 0);
    const s: SettlementRecord = {
      id: settlementId(at),
      scope: r.scope,
      providerAccountId: r.providerAccountId,
      providerName: r.providerName,
      settlementEntity: r.settlementEntity,
      reference: r.reference,
      currency: r.currency,
      grossAmount: r.grossAmount,
      feeAmount: r.feeAmount,
      netAmount: r.netAmount,
      transactionCount: matched.length + derivedCount,
      periodStart: r.periodStart,
      periodEnd: r.periodEnd,
      status: r.status,
      settledAt: r.status === 'settled' ? (r.settledAt ?? at) : null,
      createdAt: at,
    };
    await insertSettlement(tx, s);
    const derivedStatus = r.status === 'failed' ? 'failed' : 'pending';
    const derived: TransactionRecord[] = [];
    const base = {
      scope: r.scope, status: derivedStatus, entityType: 'settlement', entityId: s.id, paymentId: null,
      currency: r.currency, providerName: r.providerName, providerAccountId: r.providerAccountId,
      providerReference: r.reference, paymentMethod: null, country: null, processingTimeMs: null, failureCode: null,
      settlementId: s.id, occurredAt: s.settledAt ?? at,
    } as const;
    // Written pending and then settled below, so the settled path is the one a pending batch takes later.
    const derive = async (t: { type: 'adjustment' | 'fee'; amount: bigint; feeAmount: bigint }) =>
      derived.push((await insertTransaction(tx, { ...base, ...t }, null, at))!);
    if (adjustment !== 0n) await derive({ type: 'adjustment', amount: adjustment, feeAmount: 0n });
    if (extraFees !== 0n) await derive({ type: 'fee', amount: 0n, feeAmount: extraFees });
    if (r.status !== 'failed') {
      await tx.query('UPDATE transactions SET settlement_id = $1 WHERE id = ANY($2)', [s.id, matched.map((t) => t.id)]);
    }
    await addItems(tx, s.id, [...matched, ...derived].map((t) => t.id));
    if (r.status === 'settled') await settle(tx, s, derived, at);
    await enqueueEvent(tx, {
      id: newId('evt', at),
      type: 'settlement.created',
      mode: r.scope.mode,
      merchant_id: r.scope.merchantId,
      project_id: r.scope.projectId,
      created_at: at.toISOString(),
      data: { object: settlementJson(settlementToProto(s)) },
    });
    return s;
  }

  return { ingest, ingestAll };
}

export type SettlementIngestion = ReturnType<typeof createSettlementIngestion>;
