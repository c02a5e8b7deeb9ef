import type { Pool, Queryable } from '../shared/index.js';
import { balanceOf, type AccountTotals, type BalanceFigures } from './balances.js';
import { journalEntryId, transactionId } from './ids.js';
import { isBalanced, movementLines, type Account, type JournalLine } from './journal.js';
import type { Scope } from './movements.js';

/** Postgres access of the ledger: transactions, journal and balances. Every query names its scope. */

export interface TransactionRecord {
  id: string;
  scope: Scope;
  type: 'payment' | 'refund' | 'payout' | 'fee' | 'adjustment';
  status: 'pending' | 'successful' | 'failed';
  entityType: string;
  entityId: string;
  paymentId: string | null;
  /** Signed: negative for refunds and payouts. */
  amount: bigint;
  currency: string;
  feeAmount: bigint;
  providerName: string | null;
  providerAccountId: string | null;
  providerReference: string | null;
  paymentMethod: string | null;
  country: string | null;
  processingTimeMs: number | null;
  failureCode: string | null;
  settlementId: string | null;
  occurredAt: Date;
}

export interface TransactionFilter {
  type?: string;
  statuses: string[];
  currency?: string;
  providerAccountId?: string;
  occurredFrom?: Date;
  occurredTo?: Date;
  startingAfter?: string;
  limit: number;
}

const SCOPE = 'merchant_id = $1 AND project_id = $2 AND mode = $3';
export const scopeValues = (s: Scope) => [s.merchantId, s.projectId, s.mode];

export function toTransaction(r: Record<string, any>): TransactionRecord {
  return {
    id: r.id,
    scope: { merchantId: r.merchant_id, projectId: r.project_id, mode: r.mode },
    type: r.type,
    status: r.status,
    entityType: r.entity_type,
    entityId: r.entity_id,
    paymentId: r.payment_id,
    amount: BigInt(r.amount),
    currency: r.currency,
    feeAmount: BigInt(r.fee_amount),
    providerName: r.provider_name,
    providerAccountId: r.provider_account_id,
    providerReference: r.provider_reference,
    paymentMethod: r.payment_method,
    country: r.country,
    processingTimeMs: r.processing_time_ms,
    failureCode: r.failure_code,
    settlementId: r.settlement_id,
    occurredAt: new Date(r.occurred_at),
  };
}

/**
 * Marks an event applied. False when it was applied before (a redelivery or a replay): the caller
 * then records nothing. Concurrent deliveries of one event serialise on the primary key.
 */
export async function claimEvent(tx: Queryable, eventId: string, type: string, at: Date): Promise<boolean> {
  const { rows } = await tx.query(
    `INSERT INTO consumed_events (event_id, type, consumed_at) VALUES ($1, $2, $3)
     ON CONFLICT (event_id) DO UPDATE SET redeliveries = consumed_events.redeliveries + 1
     RETURNING (xmax = 0) AS fresh`,
    [eventId, type, at],
  );
  return rows[0].fresh === true;
}

/** Writes one journal entry; the deferred trigger refuses the commit if it does not balance. */
export async function postEntry(
  tx: Queryable, scope: Scope, currency: string, kind: string, ref: { transactionId?: string; settlementId?: string },
  lines: JournalLine[], at: Date,
): Promise<void> {
  if (lines.length === 0) return;
  if (!isBalanced(lines)) throw new Error(`unbalanced ${kind} entry`);
  const id = journalEntryId(at);
  await tx.query(
    `INSERT INTO journal_entries (id, merchant_id, project_id, mode, currency, kind, transaction_id, settlement_id, posted_at)
     VALUES ($4, $1, $2, $3, $5, $6, $7, $8, $9)`,
    [...scopeValues(scope), id, currency, kind, ref.transactionId ?? null, ref.settlementId ?? null, at],
  );
  await tx.query(
    `INSERT INTO journal_lines (entry_id, line_no, merchant_id, project_id, mode, currency, account, provider_account_id, amount)
     SELECT $4, n, $1, $2, $3, $5, a, p, v
     FROM unnest($6::text[], $7::text[], $8::bigint[]) WITH ORDINALITY AS l(a, p, v, n)`,
    [
      ...scopeValues(scope), id, currency, lines.map((l) => l.account), lines.map((l) => l.providerAccountId),
      lines.map((l) => l.amount.toString()),
    ],
  );
}

/**
 * Inserts a transaction unless its entity already has one of its type (then returns undefined);
 * a successful one posts its journal entry in the same transaction.
 */
export async function insertTransaction(
  tx: Queryable, t: Omit<TransactionRecord, 'id'>, sourceEventId: string | null, at: Date,
): Promise<TransactionRecord | undefined> {
  const id = transactionId(t.occurredAt);
  const { rows } = await tx.query(
    `INSERT INTO transactions (id, merchant_id, project_id, mode, type, status, entity_type, entity_id, payment_id,
       amount, currency, fee_amount, net_amount, provider_name, provider_account_id, provider_reference, payment_method,
       country, processing_time_ms, failure_code, settlement_id, occurred_at, source_event_id, recorded_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $10::bigint - $12::bigint, $13, $14, $15, $16, $17, $18, $19, $20, $21,
       $22, $23)
     ON CONFLICT (merchant_id, project_id, mode, entity_type, entity_id, type) DO NOTHING
     RETURNING id`,
    [
      id, ...scopeValues(t.scope), t.type, t.status, t.entityType, t.entityId, t.paymentId, t.amount, t.currency,
      t.feeAmount, t.providerName, t.providerAccountId, t.providerReference, t.paymentMethod, t.country,
      t.processingTimeMs, t.failureCode, t.settlementId, t.occurredAt, sourceEventId, at,
    ],
  );
  if (rows.length === 0) return undefined;
  const record = { ...t, id };
  if (record.status === 'successful') await postTransaction(tx, record, at);
  return record;
}

/**
 * What the consumer writes for one money event, as one statement: the event is claimed and, only
 * if this is its first delivery, its transaction is inserted (unless its entity already has one of
 * its kind) with, when successful, its balanced journal entry. One round trip and one implicit
 * transaction instead of eight; the same rules as claimEvent, insertTransaction and postEntry.
 */
export async function recordEventMovement(
  db: Queryable, event: { id: string; type: string }, t: Omit<TransactionRecord, 'id'>, at: Date,
): Promise<void> {
  const lines = t.status === 'successful'
    ? movementLines({ type: t.type, amount: t.amount, feeAmount: t.feeAmount, providerAccountId: t.providerAccountId })
    : [];
  if (!isBalanced(lines)) throw new Error(`unbalanced ${t.type} entry`);
  const values: unknown[] = [
    event.id, event.type, at, transactionId(t.occurredAt), ...scopeValues(t.scope), t.type, t.status, t.entityType,
    t.entityId, t.paymentId, t.amount, t.currency, t.feeAmount, t.providerName, t.providerAccountId, t.providerReference,
    t.paymentMethod, t.country, t.processingTimeMs, t.failureCode, t.settlementId, t.occurredAt,
  ];
  let posting = '';
  if (lines.length > 0) {
    values.push(journalEntryId(at), lines.map((l) => l.account), lines.map((l) => l.providerAccountId), lines.map((l) => l.amount.toString()));
    posting = `, entry AS (
       INSERT INTO journal_entries (id, merchant_id, project_id, mode, currency, kind, transaction_id, settlement_id, posted_at)
       SELECT $25, $5, $6, $7, $14, $8, txn.id, NULL, $3 FROM txn
       RETURNING id
     ), lines AS (
       INSERT INTO journal_lines (entry_id, line_no, merchant_id, project_id, mode, currency, account, provider_account_id, amount)
       SELECT entry.id, n, $5, $6, $7, $14, a, p, v
       FROM entry, unnest($26::text[], $27::text[], $28::bigint[]) WITH ORDINALITY AS l(a, p, v, n)
     )`;
  }
  await db.query(
    `WITH claim AS (
       INSERT INTO consumed_events (event_id, type, consumed_at) VALUES ($1, $2, $3)
       ON CONFLICT (event_id) DO UPDATE SET redeliveries = consumed_events.redeliveries + 1
       RETURNING (xmax = 0) AS fresh
     ), txn AS (
       INSERT INTO transactions (id, merchant_id, project_id, mode, type, status, entity_type, entity_id, payment_id,
         amount, currency, fee_amount, net_amount, provider_name, provider_account_id, provider_reference, payment_method,
         country, processing_time_ms, failure_code, settlement_id, occurred_at, source_event_id, recorded_at)
       SELECT $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $13::bigint - $15::bigint, $16, $17, $18, $19, $20, $21,
         $22, $23, $24, $1, $3
       WHERE (SELECT fresh FROM claim)
       ON CONFLICT (merchant_id, project_id, mode, entity_type, entity_id, type) DO NOTHING
       RETURNING id
     )${posting}
     SELECT 1`,
    values,
  );
}

export async function postTransaction(tx: Queryable, t: TransactionRecord, at: Date): Promise<void> {
  const lines = movementLines({
    type: t.type, amount: t.amount, feeAmount: t.feeAmount, providerAccountId: t.providerAccountId,
  });
  await postEntry(tx, t.scope, t.currency, t.type, { transactionId: t.id }, lines, at);
}

export function createLedgerStore(pool: Pool) {
  return {
    /** The payment's own transaction, which a refund takes its provider and method from. */
    async paymentTransaction(db: Queryable, scope: Scope, paymentId: string): Promise<TransactionRecord | undefined> {
      const { rows } = await db.query(
        `SELECT * FROM transactions WHERE ${SCOPE} AND entity_type = 'payment' AND entity_id = $4 AND type = 'payment'`,
        [...scopeValues(scope), paymentId],
      );
      return rows[0] && toTransaction(rows[0]);
    },

    async listTransactions(scope: Scope, f: TransactionFilter): Promise<{ transactions: TransactionRecord[]; hasMore: boolean }> {
      const where = [SCOPE];
      const values: unknown[] = scopeValues(scope);
      const add = (sql: string, value: unknown) => {
        values.push(value);
        where.push(sql.replace('?', `$${values.length}`));
      };
      if (f.type) add('type = ?', f.type);
      if (f.statuses.length > 0) add('status = ANY(?)', f.statuses);
      if (f.currency) add('currency = ?', f.currency);
      if (f.providerAccountId) add('provider_account_id = ?', f.providerAccountId);
      if (f.occurredFrom) add('occurred_at >= ?', f.occurredFrom);
      if (f.occurredTo) add('occurred_at < ?', f.occurredTo);
      if (f.startingAfter) add('id < ?', f.startingAfter);
      values.push(f.limit + 1);
      const { rows } = await pool.query(
        `SELECT * FROM transactions WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${values.length}`,
        values,
      );
      return { transactions: rows.slice(0, f.limit).map(toTransaction), hasMore: rows.length > f.limit };
    },

    /** One balance per currency with any transaction or settlement, from the journal's totals. */
    async balances(scope: Scope, currency?: string): Promise<BalanceFigures[]> {
      const values = [...scopeValues(scope), currency ?? null];
      const [totals, currencies] = await Promise.all([
        pool.query(
          `SELECT currency, account, sum(amount) AS total FROM journal_lines
           WHERE ${SCOPE} AND ($4::text IS NULL OR currency = $4) GROUP BY currency, account`,
          values,
        ),
        pool.query(
          `SELECT DISTINCT currency FROM transactions WHERE ${SCOPE} AND ($4::text IS NULL OR currency = $4)
           UNION SELECT DISTINCT currency FROM settlements WHERE ${SCOPE} AND ($4::text IS NULL OR currency = $4)`,
          values,
        ),
      ]);
      const byCurrency = new Map<string, AccountTotals>();
      for (const r of currencies.rows) byCurrency.set(r.currency, {});
      for (const r of totals.rows) {
        const t = byCurrency.get(r.currency) ?? {};
        t[r.account as Account] = BigInt(r.total);
        byCurrency.set(r.currency, t);
      }
      return [...byCurrency].sort(([a], [b]) => a.localeCompare(b)).map(([c, t]) => balanceOf(c, t));
    },
  };
}

export type LedgerStore = ReturnType<typeof createLedgerStore>;
