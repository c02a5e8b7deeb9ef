import type { Pool, Queryable } from '../platform/db.js';
import { balanceOf, type AccountTotals, type BalanceFigures } from './balances.js';
import { journalEntryId, transactionId } from './ids.js';
import { isBalanced, movementLines, type Account, type JournalLine } from './journal.js';
import { reversal, type Movement, type Scope, type TransactionRecord } from './movements.js';
import { minorFromColumn } from '../contract/money.js';

/** Postgres access of the ledger: transactions, journal and balances. Every query names its scope. */


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
    amount: minorFromColumn(r.amount),
    currency: r.currency,
    feeAmount: minorFromColumn(r.fee_amount),
    netAmount: minorFromColumn(r.net_amount),
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
 * a successful one posts its journal entry in the same transaction. A settlement's own fee and
 * adjustment have no movement id (`''`), so one of each per settlement.
 */
export async function insertTransaction(
  tx: Queryable, t: Omit<TransactionRecord, 'id' | 'netAmount'>, sourceEventId: string | null, at: Date,
): Promise<TransactionRecord | undefined> {
  const id = transactionId(t.occurredAt);
  const { rows } = await tx.query(
    `INSERT INTO transactions (id, merchant_id, project_id, mode, type, status, entity_type, entity_id, payment_id,
       amount, currency, fee_amount, provider_name, provider_account_id, provider_reference, payment_method,
       country, processing_time_ms, failure_code, settlement_id, occurred_at, source_event_id, recorded_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)
     ON CONFLICT (merchant_id, project_id, mode, entity_type, entity_id, type, movement_id) DO NOTHING
     RETURNING id, net_amount`,
    [
      id, ...scopeValues(t.scope), t.type, t.status, t.entityType, t.entityId, t.paymentId, t.amount, t.currency,
      t.feeAmount, t.providerName, t.providerAccountId, t.providerReference, t.paymentMethod, t.country,
      t.processingTimeMs, t.failureCode, t.settlementId, t.occurredAt, sourceEventId, at,
    ],
  );
  if (rows.length === 0) return undefined;
  const record = { ...t, id, netAmount: minorFromColumn(rows[0].net_amount) };
  if (record.status === 'successful') await postTransaction(tx, record, at);
  return record;
}

/** A money event and the movement it records, as the consumer hands them to recordEventMovements. */
export interface EventMovement {
  event: { id: string; type: string };
  movement: Movement;
}

/**
 * What the consumer writes for a batch of money events, as one statement: each event not yet
 * applied is claimed (consumed_events; a repeat counts a redelivery and records nothing), and a
 * claimed event's transaction is inserted unless its entity already has one of its kind, with,
 * when successful, its balanced journal entry. A refund, and a dispute's movement, takes provider,
 * account, method and country from its payment's transaction (in the batch or recorded before);
 * without one it is neither claimed nor recorded. A dispute's movements are one per movement id
 * (movementId), so a second withdrawal of one dispute is a movement of its own. A refund's
 * reversal likewise waits for the refund's successful transaction. Returns, per item, false for
 * those that wait.
 */
export async function recordEventMovements(db: Queryable, items: EventMovement[], at: Date): Promise<boolean[]> {
  const unique = await withPayoutReversals(db, [...new Map(items.map((item) => [item.event.id, item])).values()]);
  const rows = unique.map(({ event, movement }) => {
    const payment = movement.inheritsFromPayment ? paymentInBatch(unique, movement) : undefined;
    const t = payment ? { ...movement, ...providerOf(payment) } : movement;
    // Which lines carry the provider account is known here; the account itself is the row's.
    const lines = t.status === 'successful'
      ? movementLines({ type: t.type, amount: t.amount, feeAmount: t.feeAmount, providerAccountId: 'provider', entityType: t.entityType })
      : [];
    if (!isBalanced(lines)) throw new Error(`unbalanced ${t.type} entry`);
    return {
      event, t, lines, inherits: movement.inheritsFromPayment && !payment,
      needsRefund: movement.reversesRefund && !refundInBatch(unique, movement),
      txnId: transactionId(t.occurredAt), entryId: journalEntryId(at),
    };
  });
  const col = <T>(f: (r: (typeof rows)[number]) => T) => rows.map(f);
  const lines = rows.flatMap((r) => r.lines.map((l, i) => ({ entryId: r.entryId, no: i + 1, ...l })));
  const { rows: ready } = await db.query({
    // Prepared once per connection: the text is the same for every batch.
    name: 'ledger-record-movements',
    text: `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
         $8::text[], $9::text[], $10::text[], $11::text[], $12::bigint[], $13::text[], $14::bigint[], $15::text[],
         $16::text[], $17::text[], $18::text[], $19::text[], $20::int[], $21::text[], $22::timestamptz[],
         $23::boolean[], $24::text[], $31::boolean[], $32::text[])
       WITH ORDINALITY AS i(event_id, event_type, txn_id, merchant_id, project_id, mode, type, status, entity_type,
         entity_id, payment_id, amount, currency, fee_amount, provider_name, provider_account_id, provider_reference,
         payment_method, country, processing_time_ms, failure_code, occurred_at, inherits, entry_id, needs_refund,
         movement_id, ord)
     ), source AS (
       SELECT i.event_id, i.event_type, i.txn_id, i.merchant_id, i.project_id, i.mode, i.type, i.status,
         i.entity_type, i.entity_id, i.payment_id, i.amount, i.currency, i.fee_amount, i.provider_reference,
         i.processing_time_ms, i.failure_code, i.occurred_at, i.entry_id, i.movement_id, i.ord,
         CASE WHEN i.inherits THEN p.provider_name ELSE i.provider_name END AS provider_name,
         CASE WHEN i.inherits THEN p.provider_account_id ELSE i.provider_account_id END AS provider_account_id,
         CASE WHEN i.inherits THEN p.payment_method ELSE i.payment_method END AS payment_method,
         CASE WHEN i.inherits THEN p.country ELSE i.country END AS country
       FROM input i
       -- Each a lookup by the movement key's index per input row (LIMIT keeps the planner from
       -- flattening it into a join): a join here was planned, while the table had no statistics
       -- yet, as a scan of every transaction for every row of the batch.
       LEFT JOIN LATERAL (
         SELECT p.id, p.provider_name, p.provider_account_id, p.payment_method, p.country FROM transactions p
         WHERE i.inherits AND p.merchant_id = i.merchant_id AND p.project_id = i.project_id AND p.mode = i.mode
           AND p.entity_type = 'payment' AND p.entity_id = i.payment_id AND p.type = 'payment' AND p.movement_id = ''
         LIMIT 1
       ) p ON true
       LEFT JOIN LATERAL (
         SELECT r.id FROM transactions r
         WHERE i.needs_refund AND r.merchant_id = i.merchant_id AND r.project_id = i.project_id AND r.mode = i.mode
           AND r.entity_type = 'refund' AND r.entity_id = i.entity_id AND r.type = 'refund'
           AND r.status = 'successful'
         LIMIT 1
       ) r ON true
       WHERE (NOT i.inherits OR p.id IS NOT NULL) AND (NOT i.needs_refund OR r.id IS NOT NULL)
     ), claim AS (
       INSERT INTO consumed_events (event_id, type, consumed_at)
       SELECT event_id, event_type, $30 FROM source
       ON CONFLICT (event_id) DO UPDATE SET redeliveries = consumed_events.redeliveries + 1
       RETURNING event_id, (xmax = 0) AS fresh
     ), txn AS (
       INSERT INTO transactions (id, merchant_id, project_id, mode, type, status, entity_type, entity_id, payment_id,
         amount, currency, fee_amount, provider_name, provider_account_id, provider_reference, payment_method,
         country, processing_time_ms, failure_code, settlement_id, occurred_at, source_event_id, recorded_at, movement_id)
       SELECT s.txn_id, s.merchant_id, s.project_id, s.mode, s.type, s.status, s.entity_type, s.entity_id, s.payment_id,
         s.amount, s.currency, s.fee_amount, s.provider_name, s.provider_account_id,
         s.provider_reference, s.payment_method, s.country, s.processing_time_ms, s.failure_code, NULL, s.occurred_at,
         s.event_id, $30, s.movement_id
       FROM source s JOIN claim c ON c.event_id = s.event_id AND c.fresh
       -- Two events of one entity in a batch: the earlier in the stream is its movement, as one by one.
       ORDER BY s.ord
       ON CONFLICT (merchant_id, project_id, mode, entity_type, entity_id, type, movement_id) DO NOTHING
       RETURNING id, merchant_id, project_id, mode, currency, type, status, provider_account_id
     ), entry AS (
       INSERT INTO journal_entries (id, merchant_id, project_id, mode, currency, kind, transaction_id, settlement_id, posted_at)
       SELECT s.entry_id, t.merchant_id, t.project_id, t.mode, t.currency, t.type, t.id, NULL, $30
       FROM txn t JOIN source s ON s.txn_id = t.id
       WHERE t.status = 'successful'
       RETURNING id, transaction_id
     ), posted AS (
       INSERT INTO journal_lines (entry_id, line_no, merchant_id, project_id, mode, currency, account, provider_account_id, amount)
       SELECT e.id, l.line_no, t.merchant_id, t.project_id, t.mode, t.currency, l.account,
         CASE WHEN l.of_provider THEN t.provider_account_id END, l.amount
       FROM entry e JOIN txn t ON t.id = e.transaction_id
       JOIN unnest($25::text[], $26::int[], $27::text[], $28::boolean[], $29::bigint[])
         AS l(entry_id, line_no, account, of_provider, amount) ON l.entry_id = e.id
     )
     SELECT event_id FROM source`,
    values: [
      col((r) => r.event.id), col((r) => r.event.type), col((r) => r.txnId), col((r) => r.t.scope.merchantId),
      col((r) => r.t.scope.projectId), col((r) => r.t.scope.mode), col((r) => r.t.type), col((r) => r.t.status),
      col((r) => r.t.entityType), col((r) => r.t.entityId), col((r) => r.t.paymentId), col((r) => r.t.amount.toString()),
      col((r) => r.t.currency), col((r) => r.t.feeAmount.toString()), col((r) => r.t.providerName),
      col((r) => r.t.providerAccountId), col((r) => r.t.providerReference), col((r) => r.t.paymentMethod),
      col((r) => r.t.country), col((r) => r.t.processingTimeMs), col((r) => r.t.failureCode), col((r) => r.t.occurredAt),
      col((r) => r.inherits), col((r) => r.entryId),
      lines.map((l) => l.entryId), lines.map((l) => l.no), lines.map((l) => l.account),
      lines.map((l) => l.providerAccountId !== null), lines.map((l) => l.amount.toString()), at,
      col((r) => r.needsRefund), col((r) => r.t.movementId ?? ''),
    ],
  });
  const recorded = new Set(ready.map((r) => r.event_id as string));
  return items.map((item) => recorded.has(item.event.id));
}

/** The batch's own movement of a refund's payment: recorded by this same statement, or before. */
function paymentInBatch(items: EventMovement[], refund: Movement): Movement | undefined {
  return items.find(({ movement: m }) =>
    m.type === 'payment' && !m.movementId && m.entityId === refund.paymentId && m.scope.merchantId === refund.scope.merchantId &&
    m.scope.projectId === refund.scope.projectId && m.scope.mode === refund.scope.mode)?.movement;
}

/** The batch's own successful movement of the refund a reversal cancels out. */
function refundInBatch(items: EventMovement[], reversal: Movement): boolean {
  return items.some(({ movement: m }) =>
    m.type === 'refund' && m.status === 'successful' && m.entityId === reversal.entityId &&
    m.scope.merchantId === reversal.scope.merchantId && m.scope.projectId === reversal.scope.projectId &&
    m.scope.mode === reversal.scope.mode);
}

/**
 * A failed payout whose successful movement is recorded, or in the batch (either order), is its
 * reversal (reversal). A failure delivered before its payout's success, in an earlier batch,
 * stays the payout's failed movement and the success finds the kind taken: nothing moved, as in the end.
 */
async function withPayoutReversals(db: Queryable, items: EventMovement[]): Promise<EventMovement[]> {
  const failed = items.filter(({ movement: m }) => m.type === 'payout' && m.status === 'failed');
  if (failed.length === 0) return items;
  const key = (m: Movement) => `${m.scope.merchantId}/${m.scope.projectId}/${m.scope.mode}/${m.entityId}`;
  const { rows } = await db.query(
    `SELECT merchant_id || '/' || project_id || '/' || mode || '/' || entity_id AS key FROM transactions
     WHERE entity_type = 'payout' AND type = 'payout' AND status = 'successful' AND entity_id = ANY($1)`,
    [failed.map(({ movement }) => movement.entityId)],
  );
  const paid = new Set<string>(rows.map((r) => r.key));
  for (const { movement: m } of items) if (m.type === 'payout' && m.status === 'successful') paid.add(key(m));
  return items.map((item) => (item.movement.type === 'payout' && item.movement.status === 'failed' && paid.has(key(item.movement))
    ? { ...item, movement: reversal(item.movement) } : item));
}

const providerOf = (m: Movement) =>
  ({ providerName: m.providerName, providerAccountId: m.providerAccountId, paymentMethod: m.paymentMethod, country: m.country });

export async function postTransaction(tx: Queryable, t: TransactionRecord, at: Date): Promise<void> {
  const lines = movementLines({
    type: t.type, amount: t.amount, feeAmount: t.feeAmount, providerAccountId: t.providerAccountId, entityType: t.entityType,
  });
  await postEntry(tx, t.scope, t.currency, t.type, { transactionId: t.id }, lines, at);
}

// A page of a scope's transactions, newest first; each filter ($4 to $10) applies unless null (or,
// for the statuses, empty). Not prepared: planned for the filters each request sets.
const LIST_TRANSACTIONS_SQL = `SELECT * FROM transactions WHERE ${SCOPE}
  AND ($4::text IS NULL OR type = $4) AND (cardinality($5::text[]) = 0 OR status = ANY($5))
  AND ($6::text IS NULL OR currency = $6) AND ($7::text IS NULL OR provider_account_id = $7)
  AND ($8::timestamptz IS NULL OR occurred_at >= $8) AND ($9::timestamptz IS NULL OR occurred_at < $9)
  AND ($10::text IS NULL OR id < $10)
  ORDER BY id DESC LIMIT $11`;

export function createLedgerStore(pool: Pool) {
  return {
    async listTransactions(scope: Scope, f: TransactionFilter): Promise<{ transactions: TransactionRecord[]; hasMore: boolean }> {
      const { rows } = await pool.query(LIST_TRANSACTIONS_SQL, [
        ...scopeValues(scope), f.type ?? null, f.statuses, f.currency ?? null, f.providerAccountId ?? null,
        f.occurredFrom ?? null, f.occurredTo ?? null, f.startingAfter ?? null, f.limit + 1,
      ]);
      return { transactions: rows.slice(0, f.limit).map(toTransaction), hasMore: rows.length > f.limit };
    },

    /**
     * One balance per currency with any transaction or settlement, from the journal's totals. One
     * statement, so one snapshot: read side by side, a currency's transaction could be seen before
     * its journal lines, and the balance would show it with every figure zero.
     */
    async balances(scope: Scope, currency?: string): Promise<BalanceFigures[]> {
      const { rows } = await pool.query(
        `SELECT c.currency, t.account, t.total
         FROM (SELECT DISTINCT currency FROM transactions WHERE ${SCOPE} AND ($4::text IS NULL OR currency = $4)
               UNION SELECT DISTINCT currency FROM settlements WHERE ${SCOPE} AND ($4::text IS NULL OR currency = $4)
               UNION SELECT DISTINCT currency FROM journal_lines WHERE ${SCOPE} AND ($4::text IS NULL OR currency = $4)) c
         LEFT JOIN (SELECT currency, account, sum(amount) AS total FROM journal_lines
                    WHERE ${SCOPE} AND ($4::text IS NULL OR currency = $4) GROUP BY currency, account) t
           ON t.currency = c.currency`,
        [...scopeValues(scope), currency ?? null],
      );
      const byCurrency = new Map<string, AccountTotals>();
      for (const r of rows) {
        const t = byCurrency.get(r.currency) ?? {};
        if (r.account !== null) t[r.account as Account] = minorFromColumn(r.total);
        byCurrency.set(r.currency, t);
      }
      return [...byCurrency].sort(([a], [b]) => a.localeCompare(b)).map(([c, t]) => balanceOf(c, t));
    },
  };
}

export type LedgerStore = ReturnType<typeof createLedgerStore>;
