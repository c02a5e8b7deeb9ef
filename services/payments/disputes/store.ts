import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import type { Pool, Queryable } from '../../platform/db.js';
import type { ChangeSource, DisputeRecord, FundMovement } from './model.js';
import { minorFromColumn } from '../../contract/money.js';

/** Postgres access to disputes, their history, money movements and documents. Every read filters on the scope. */

const SCOPE = 'merchant_id = $1 AND project_id = $2 AND mode = $3';
const scopeValues = (s: Scope) => [s.merchantId, s.projectId, s.mode];

function toDispute(r: Record<string, any>): DisputeRecord {
  return {
    id: r.id,
    paymentId: r.payment_id,
    attemptId: r.attempt_id,
    merchantId: r.merchant_id,
    projectId: r.project_id,
    mode: r.mode,
    providerId: r.provider_id,
    providerCode: r.provider_code,
    providerName: r.provider_name,
    providerAccountId: r.provider_account_id,
    providerDisputeId: r.provider_dispute_id,
    amount: minorFromColumn(r.amount),
    currency: r.currency,
    feeAmount: minorFromColumn(r.fee_amount),
    reason: r.reason,
    providerReason: r.provider_reason,
    stage: r.stage,
    status: r.status,
    evidenceDueBy: r.evidence_due_by && new Date(r.evidence_due_by),
    fundsWithdrawn: r.funds_withdrawn,
    movements: r.movements,
    providerEventAt: new Date(r.provider_event_at),
    providerSequence: r.provider_sequence === null ? null : BigInt(r.provider_sequence),
    evidence: r.evidence,
    evidenceSubmittedAt: r.evidence_submitted_at && new Date(r.evidence_submitted_at),
    decideAt: r.decide_at && new Date(r.decide_at),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

const COLUMNS = [
  'id', 'payment_id', 'attempt_id', 'merchant_id', 'project_id', 'mode', 'provider_id', 'provider_code', 'provider_name',
  'provider_account_id', 'provider_dispute_id', 'amount', 'currency', 'fee_amount', 'reason', 'provider_reason', 'stage',
  'status', 'evidence_due_by', 'funds_withdrawn', 'movements', 'provider_event_at', 'provider_sequence', 'evidence',
  'evidence_submitted_at', 'decide_at', 'created_at', 'updated_at',
];
const MUTABLE = COLUMNS.slice(COLUMNS.indexOf('amount')).filter((c) => c !== 'currency' && c !== 'created_at');

function rowValues(d: DisputeRecord): unknown[] {
  return [
    d.id, d.paymentId, d.attemptId, d.merchantId, d.projectId, d.mode, d.providerId, d.providerCode, d.providerName,
    d.providerAccountId, d.providerDisputeId, d.amount, d.currency, d.feeAmount, d.reason, d.providerReason, d.stage,
    d.status, d.evidenceDueBy, d.fundsWithdrawn, d.movements, d.providerEventAt, d.providerSequence,
    JSON.stringify(d.evidence), d.evidenceSubmittedAt, d.decideAt, d.createdAt, d.updatedAt,
  ];
}

export interface DisputeFilter {
  statuses: string[];
  paymentId?: string;
  createdFrom?: Date;
  createdTo?: Date;
  startingAfter?: string;
  limit: number;
}

export interface DisputeDocument {
  id: string;
  disputeId: string;
  filename: string;
  contentType: string;
  size: number;
  createdAt: Date;
}

export function createDisputeStore(pool: Pool) {
  return {
    /**
     * Inserts the dispute unless its provider key is taken (a concurrent or earlier view made it);
     * true when this call inserted it.
     */
    async insertIfAbsent(tx: Queryable, d: DisputeRecord): Promise<boolean> {
      const { rowCount } = await tx.query(
        `INSERT INTO disputes (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
         ON CONFLICT (merchant_id, project_id, mode, provider_code, provider_dispute_id) DO NOTHING`,
        rowValues(d),
      );
      return rowCount === 1;
    },

    async save(tx: Queryable, d: DisputeRecord): Promise<void> {
      const all = rowValues(d);
      const sets = MUTABLE.map((c, i) => `${c} = $${i + 2}`);
      await tx.query(`UPDATE disputes SET ${sets.join(', ')} WHERE id = $1`, [d.id, ...MUTABLE.map((c) => all[COLUMNS.indexOf(c)])]);
    },

    /** The dispute by its provider key, locked for the rest of the transaction. */
    async getByProviderForUpdate(tx: Queryable, scope: Scope, providerCode: string, providerDisputeId: string): Promise<DisputeRecord | undefined> {
      const { rows } = await tx.query(
        `SELECT * FROM disputes WHERE ${SCOPE} AND provider_code = $4 AND provider_dispute_id = $5 FOR UPDATE`,
        [...scopeValues(scope), providerCode, providerDisputeId],
      );
      return rows.length === 0 ? undefined : toDispute(rows[0]);
    },

    async getForUpdate(tx: Queryable, scope: Scope, id: string): Promise<DisputeRecord | undefined> {
      const { rows } = await tx.query(`SELECT * FROM disputes WHERE ${SCOPE} AND id = $4 FOR UPDATE`, [...scopeValues(scope), id]);
      return rows.length === 0 ? undefined : toDispute(rows[0]);
    },

    async get(scope: Scope, id: string, db: Queryable = pool): Promise<DisputeRecord | undefined> {
      const { rows } = await db.query(`SELECT * FROM disputes WHERE ${SCOPE} AND id = $4`, [...scopeValues(scope), id]);
      return rows.length === 0 ? undefined : toDispute(rows[0]);
    },

    /** Newest first by id (ids are time-ordered), `limit + 1` rows to know whether more follow. */
    async list(scope: Scope, f: DisputeFilter): Promise<{ disputes: DisputeRecord[]; hasMore: boolean }> {
      const where = [SCOPE];
      const values: unknown[] = scopeValues(scope);
      const add = (sql: (n: string) => string, value: unknown) => {
        values.push(value);
        where.push(sql(`$${values.length}`));
      };
      if (f.statuses.length > 0) add((n) => `status = ANY(${n})`, f.statuses);
      if (f.paymentId) add((n) => `payment_id = ${n}`, f.paymentId);
      if (f.createdFrom) add((n) => `created_at >= ${n}`, f.createdFrom);
      if (f.createdTo) add((n) => `created_at < ${n}`, f.createdTo);
      if (f.startingAfter) add((n) => `id < ${n}`, f.startingAfter);
      values.push(f.limit + 1);
      const { rows } = await pool.query(
        `SELECT * FROM disputes WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${values.length}`, values,
      );
      return { disputes: rows.slice(0, f.limit).map(toDispute), hasMore: rows.length > f.limit };
    },

    /** The payment's disputes, oldest first (the payment resource's summaries). */
    async forPayments(paymentIds: string[], db: Queryable = pool): Promise<DisputeRecord[]> {
      if (paymentIds.length === 0) return [];
      const { rows } = await db.query(`SELECT * FROM disputes WHERE payment_id = ANY($1) ORDER BY id`, [paymentIds]);
      return rows.map(toDispute);
    },

    /** One history row for the dispute as it now stands; `seq` is the next after the dispute's last. */
    async addHistory(tx: Queryable, d: DisputeRecord, source: ChangeSource, providerEventAt: Date | null, at: Date): Promise<void> {
      await tx.query(
        `INSERT INTO dispute_history (dispute_id, seq, status, stage, funds_withdrawn, amount, source, provider_event_at, created_at)
         VALUES ($1, (SELECT COALESCE(max(seq), 0) + 1 FROM dispute_history WHERE dispute_id = $1), $2, $3, $4, $5, $6, $7, $8)`,
        [d.id, d.status, d.stage, d.fundsWithdrawn, d.amount, source, providerEventAt, at],
      );
    },

    /** Records a movement; the (dispute, seq) key refuses a second one for the same step. */
    async insertMovement(tx: Queryable, m: FundMovement): Promise<void> {
      await tx.query(
        `INSERT INTO dispute_fund_movements (id, dispute_id, seq, kind, amount, fee_amount, currency, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [m.id, m.disputeId, m.seq, m.kind, m.amount, m.feeAmount, m.currency, m.createdAt],
      );
    },

    /** The dispute's last withdrawal: what a reinstatement gives back. */
    async lastWithdrawal(tx: Queryable, disputeId: string): Promise<FundMovement | undefined> {
      const { rows } = await tx.query(
        `SELECT * FROM dispute_fund_movements WHERE dispute_id = $1 AND kind = 'withdrawal' ORDER BY seq DESC LIMIT 1`, [disputeId],
      );
      if (rows.length === 0) return undefined;
      const r = rows[0];
      return {
        id: r.id, disputeId: r.dispute_id, seq: r.seq, kind: r.kind, amount: minorFromColumn(r.amount), feeAmount: minorFromColumn(r.fee_amount),
        currency: r.currency, createdAt: new Date(r.created_at),
      };
    },

    async insertDocument(tx: Queryable, scope: Scope, doc: DisputeDocument, content: Buffer): Promise<void> {
      await tx.query(
        `INSERT INTO dispute_documents (id, dispute_id, merchant_id, project_id, mode, filename, content_type, size, content, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [doc.id, doc.disputeId, scope.merchantId, scope.projectId, scope.mode, doc.filename, doc.contentType, doc.size, content, doc.createdAt],
      );
    },

    /** The documents' contents, for sending them to the provider with the evidence. */
    async documentContents(disputeId: string, ids: string[]): Promise<Array<DisputeDocument & { content: Buffer }>> {
      if (ids.length === 0) return [];
      const { rows } = await pool.query(
        `SELECT id, dispute_id, filename, content_type, size, content, created_at FROM dispute_documents
         WHERE dispute_id = $1 AND id = ANY($2) ORDER BY id`,
        [disputeId, ids],
      );
      return rows.map((r) => ({
        id: r.id, disputeId: r.dispute_id, filename: r.filename, contentType: r.content_type, size: r.size, content: r.content,
        createdAt: new Date(r.created_at),
      }));
    },

    /** The dispute's documents (without their content). */
    async documents(scope: Scope, disputeId: string, db: Queryable = pool): Promise<DisputeDocument[]> {
      const { rows } = await db.query(
        `SELECT id, dispute_id, filename, content_type, size, created_at FROM dispute_documents
         WHERE ${SCOPE} AND dispute_id = $4 ORDER BY id`,
        [...scopeValues(scope), disputeId],
      );
      return rows.map((r) => ({
        id: r.id, disputeId: r.dispute_id, filename: r.filename, contentType: r.content_type, size: r.size, createdAt: new Date(r.created_at),
      }));
    },
  };
}

export type DisputeStore = ReturnType<typeof createDisputeStore>;

/** Sandbox: the demo provider decides the dispute's evidence `seconds` from now, by the database's clock. */
export async function scheduleDecision(tx: Queryable, disputeId: string, seconds: number): Promise<void> {
  await tx.query(`UPDATE disputes SET decide_at = now() + make_interval(secs => $2) WHERE id = $1`, [disputeId, seconds]);
}
