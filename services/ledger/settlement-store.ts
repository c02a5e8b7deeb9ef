import type { SettlementStatus } from '../contract/enums.js';
import type { Pool, Queryable } from '../platform/db.js';
import type { Scope } from './movements.js';
import { scopeValues, toTransaction } from './store.js';
import type { TransactionRecord } from './movements.js';
import { minorFromColumn } from '../contract/money.js';

/** Postgres access of settlements and their items. Every query names its scope. */

export type { SettlementStatus };

export interface SettlementRecord {
  id: string;
  scope: Scope;
  providerAccountId: string;
  providerName: string | null;
  settlementEntity: string | null;
  reference: string;
  currency: string;
  grossAmount: bigint;
  feeAmount: bigint;
  netAmount: bigint;
  transactionCount: number;
  periodStart: Date;
  periodEnd: Date;
  status: SettlementStatus;
  settledAt: Date | null;
  createdAt: Date;
}

const SCOPE = 'merchant_id = $1 AND project_id = $2 AND mode = $3';

function toSettlement(r: Record<string, any>): SettlementRecord {
  return {
    id: r.id,
    scope: { merchantId: r.merchant_id, projectId: r.project_id, mode: r.mode },
    providerAccountId: r.provider_account_id,
    providerName: r.provider_name,
    settlementEntity: r.settlement_entity,
    reference: r.settlement_reference,
    currency: r.currency,
    grossAmount: minorFromColumn(r.gross_amount),
    feeAmount: minorFromColumn(r.fee_amount),
    netAmount: minorFromColumn(r.net_amount),
    transactionCount: r.transaction_count,
    periodStart: new Date(r.period_start),
    periodEnd: new Date(r.period_end),
    status: r.status,
    settledAt: r.settled_at ? new Date(r.settled_at) : null,
    createdAt: new Date(r.created_at),
  };
}

export async function findByReference(
  tx: Queryable, scope: Scope, providerAccountId: string, reference: string,
): Promise<SettlementRecord | undefined> {
  const { rows } = await tx.query(
    `SELECT * FROM settlements WHERE ${SCOPE} AND provider_account_id = $4 AND settlement_reference = $5 FOR UPDATE`,
    [...scopeValues(scope), providerAccountId, reference],
  );
  return rows[0] && toSettlement(rows[0]);
}

export async function insertSettlement(tx: Queryable, s: SettlementRecord): Promise<void> {
  await tx.query(
    `INSERT INTO settlements (id, merchant_id, project_id, mode, provider_account_id, provider_name, settlement_entity,
       settlement_reference, currency, gross_amount, fee_amount, net_amount, transaction_count, period_start, period_end,
       status, settled_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $18)`,
    [
      s.id, ...scopeValues(s.scope), s.providerAccountId, s.providerName, s.settlementEntity, s.reference, s.currency,
      s.grossAmount, s.feeAmount, s.netAmount, s.transactionCount, s.periodStart, s.periodEnd, s.status, s.settledAt,
      s.createdAt,
    ],
  );
}

export async function updateStatus(
  tx: Queryable, s: SettlementRecord, status: SettlementStatus, settledAt: Date | null, at: Date,
): Promise<void> {
  await tx.query('UPDATE settlements SET status = $2, settled_at = $3, updated_at = $4 WHERE id = $1', [
    s.id, status, settledAt, at,
  ]);
  s.status = status;
  s.settledAt = settledAt;
}

export async function addItems(tx: Queryable, settlementId: string, transactionIds: string[]): Promise<void> {
  await tx.query(
    `INSERT INTO settlement_items (settlement_id, transaction_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`,
    [settlementId, transactionIds],
  );
}

/** The settlement's own fee and adjustment transactions (pending until it settles). */
export async function derivedTransactions(tx: Queryable, s: SettlementRecord): Promise<TransactionRecord[]> {
  const { rows } = await tx.query(
    `SELECT * FROM transactions WHERE ${SCOPE} AND entity_type = 'settlement' AND entity_id = $4 FOR UPDATE`,
    [...scopeValues(s.scope), s.id],
  );
  return rows.map(toTransaction);
}

export function createSettlementStore(pool: Pool) {
  return {
    async list(scope: Scope, f: { status?: string; providerAccountId?: string }): Promise<SettlementRecord[]> {
      const { rows } = await pool.query(
        `SELECT * FROM settlements WHERE ${SCOPE} AND ($4::text IS NULL OR status = $4)
           AND ($5::text IS NULL OR provider_account_id = $5)
         ORDER BY id DESC`,
        [...scopeValues(scope), f.status ?? null, f.providerAccountId ?? null],
      );
      return rows.map(toSettlement);
    },

    async get(scope: Scope, id: string): Promise<{ settlement: SettlementRecord; items: TransactionRecord[] } | undefined> {
      const { rows } = await pool.query(`SELECT * FROM settlements WHERE ${SCOPE} AND id = $4`, [...scopeValues(scope), id]);
      if (!rows[0]) return undefined;
      const items = await pool.query(
        `SELECT t.* FROM settlement_items i JOIN transactions t ON t.id = i.transaction_id
         WHERE i.settlement_id = $1 ORDER BY t.id`,
        [id],
      );
      return { settlement: toSettlement(rows[0]), items: items.rows.map(toTransaction) };
    },

    async getById(db: Queryable, id: string): Promise<SettlementRecord> {
      const { rows } = await db.query('SELECT * FROM settlements WHERE id = $1', [id]);
      return toSettlement(rows[0]);
    },
  };
}

export type SettlementStore = ReturnType<typeof createSettlementStore>;
