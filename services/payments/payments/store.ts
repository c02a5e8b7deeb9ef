import { create } from '@bufbuild/protobuf';
import { ScopeSchema, type Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import { withTransaction, type Pool, type PoolClient, type Queryable } from '../../platform/db.js';
import { asJson, columnsOf, valuesOf, type FieldMap } from '../../platform/field-map.js';
import { createGroupCommit } from '../../platform/group-commit.js';
import { bindingRow, boundResource, type Binding } from '../../platform/idempotency-bindings.js';
import { row, writeRows, type CheckRow, type CheckShape, type Column, type RowWrite, type TableShape, type Unit } from '../../platform/row-writes.js';
import type { AttemptRecord, PaymentRecord, TimelineEntry } from './model.js';
import { customerActionQueries } from './customer-action-store.js';
import { monotonicIds, type TimelineRow } from './timeline.js';
import { describeEntry } from './timeline-descriptions.js';
import { minorFromColumn } from '../../contract/money.js';

/** Postgres access of payments. Every read filters on merchant, project and mode. */

const PAYMENT_FIELDS: FieldMap<PaymentRecord> = {
  id: 'id', merchant_id: 'merchantId', project_id: 'projectId', mode: 'mode', status: 'status', amount: 'amount',
  currency: 'currency', captured_amount: 'capturedAmount', refunded_amount: 'refundedAmount',
  capture_method: 'captureMethod', payment_method_type: 'paymentMethodType', payment_method_id: 'paymentMethodId',
  country: 'country', description: 'description', reference: 'reference', customer: asJson('customer'),
  metadata: asJson('metadata'), return_url: 'returnUrl', test_scenario: 'testScenario', mit_network_transaction_id: 'mitNetworkTransactionId',
  provider_id: 'providerId',
  provider_code: 'providerCode', provider_name: 'providerName', provider_account_id: 'providerAccountId',
  provider_payment_id: 'providerPaymentId', attempt_count: 'attemptCount', routing_decision_id: 'routingDecisionId',
  routing_rule: 'routingRule', route_skipped: asJson('routeSkipped'), risk_decision_id: 'riskDecisionId',
  risk_score: 'riskScore', failure: asJson('failure'),
  next_action: asJson('nextAction'), fee_amount: 'feeAmount', processing_time_ms: 'processingTimeMs',
  created_at: 'createdAt', updated_at: 'updatedAt', processed_at: 'processedAt',
};

/** An attempt row: the attempt with its payment's id and scope. */
type AttemptRow = AttemptRecord & Pick<PaymentRecord, 'merchantId' | 'projectId' | 'mode'> & { paymentId: string };

const attemptRow = (p: PaymentRecord, a: AttemptRecord): AttemptRow => ({
  ...a, paymentId: p.id, merchantId: p.merchantId, projectId: p.projectId, mode: p.mode,
});

const ATTEMPT_FIELDS: FieldMap<AttemptRow> = {
  id: 'id', payment_id: 'paymentId', merchant_id: 'merchantId', project_id: 'projectId', mode: 'mode',
  attempt_number: 'attemptNumber', status: 'status', outcome: 'outcome', provider_id: 'providerId',
  provider_code: 'providerCode', provider_name: 'providerName', provider_account_id: 'providerAccountId',
  provider_payment_id: 'providerPaymentId', provider_response_code: 'providerResponseCode',
  provider_message: 'providerMessage', failure: asJson('failure'), fee_amount: 'feeAmount', latency_ms: 'latencyMs',
  fee_fixed: 'feeFixed', fee_bps: 'feeBps', vault: 'vault', created_at: 'createdAt', updated_at: 'updatedAt',
};

const COLUMN_TYPES: Record<string, string> = {
  amount: 'bigint', captured_amount: 'bigint', refunded_amount: 'bigint', fee_amount: 'bigint', fee_fixed: 'bigint',
  attempt_count: 'integer', risk_score: 'integer', processing_time_ms: 'integer', attempt_number: 'integer',
  latency_ms: 'integer', fee_bps: 'integer', customer: 'jsonb', metadata: 'jsonb', route_skipped: 'jsonb',
  failure: 'jsonb', next_action: 'jsonb', data: 'jsonb', created_at: 'timestamptz', updated_at: 'timestamptz',
  processed_at: 'timestamptz',
};
/** The columns with their types: text unless COLUMN_TYPES says otherwise. */
const typed = (names: readonly string[]): Column[] => names.map((name) => ({ name, type: COLUMN_TYPES[name] ?? 'text' }));

/** Upserted by id: every column changes but the immutable scope and creation time. */
function upserted(table: string, columns: readonly string[]): TableShape {
  const fixed = new Set(['id', 'payment_id', 'merchant_id', 'project_id', 'mode', 'created_at']);
  return { table, columns: typed(columns), key: ['id'], write: 'upsert', set: columns.filter((c) => !fixed.has(c)) };
}

const PAYMENTS = upserted('payments', columnsOf(PAYMENT_FIELDS));
const ATTEMPTS = upserted('payment_attempts', columnsOf(ATTEMPT_FIELDS));
const TIMELINE: TableShape = {
  table: 'timeline_events',
  columns: typed(['id', 'payment_id', 'merchant_id', 'project_id', 'mode', 'type', 'title', 'description', 'attempt_id', 'data', 'created_at']),
  key: ['id'],
  write: 'insert',
};

/**
 * Makes a change's writes apply only while the attempt is still in flight. It runs before them
 * (the statement's main query): the payment's row lock first, as every change takes it, then the
 * attempt's; locking the attempt re-reads its latest version, so a settlement committed meanwhile
 * is seen. Not in flight, it aborts the whole statement with SQLSTATE ATTEMPT_SETTLED (migration 0010).
 */
const ATTEMPT_IN_FLIGHT: CheckShape = {
  columns: typed(['payment_id', 'attempt_id']),
  sql: `SELECT require_attempt_in_flight(EXISTS (
          SELECT 1 FROM payment_attempts a
          WHERE a.id = v.attempt_id AND a.payment_id = (SELECT id FROM payments WHERE id = v.payment_id FOR UPDATE)
            AND a.status = 'processing' AND a.outcome IS NULL
          FOR UPDATE OF a))`,
};

function toAttempt(r: Record<string, any>): AttemptRecord {
  return {
    id: r.id,
    attemptNumber: r.attempt_number,
    status: r.status,
    outcome: r.outcome,
    providerId: r.provider_id,
    providerCode: r.provider_code,
    providerName: r.provider_name,
    providerAccountId: r.provider_account_id,
    providerPaymentId: r.provider_payment_id,
    providerResponseCode: r.provider_response_code,
    providerMessage: r.provider_message,
    failure: r.failure,
    feeAmount: minorFromColumn(r.fee_amount),
    latencyMs: r.latency_ms,
    feeFixed: r.fee_fixed === null ? null : minorFromColumn(r.fee_fixed),
    feeBps: r.fee_bps,
    vault: r.vault ?? null,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

function toPayment(r: Record<string, any>, attempts: AttemptRecord[]): PaymentRecord {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    projectId: r.project_id,
    mode: r.mode,
    status: r.status,
    amount: r.amount,
    currency: r.currency,
    capturedAmount: r.captured_amount,
    refundedAmount: r.refunded_amount,
    captureMethod: r.capture_method,
    paymentMethodType: r.payment_method_type,
    paymentMethodId: r.payment_method_id,
    country: r.country,
    description: r.description,
    reference: r.reference,
    customer: r.customer,
    metadata: r.metadata,
    returnUrl: r.return_url,
    testScenario: r.test_scenario,
    mitNetworkTransactionId: r.mit_network_transaction_id ?? null,
    providerId: r.provider_id,
    providerCode: r.provider_code,
    providerName: r.provider_name,
    providerAccountId: r.provider_account_id,
    providerPaymentId: r.provider_payment_id,
    attemptCount: r.attempt_count,
    routingDecisionId: r.routing_decision_id,
    routingRule: r.routing_rule,
    routeSkipped: r.route_skipped ?? [],
    riskDecisionId: r.risk_decision_id,
    riskScore: r.risk_score,
    failure: r.failure,
    nextAction: r.next_action ?? null,
    feeAmount: r.fee_amount,
    processingTimeMs: r.processing_time_ms,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    processedAt: r.processed_at,
    attempts,
  };
}

const WITH_ATTEMPTS = `p.*, COALESCE(
  (SELECT json_agg(a ORDER BY a.attempt_number) FROM payment_attempts a WHERE a.payment_id = p.id), '[]') AS attempts_json,
  (SELECT json_agg(json_build_object('id', d.id, 'amount', d.amount, 'currency', d.currency, 'reason', d.reason, 'stage', d.stage,
     'status', d.status, 'funds_withdrawn', d.funds_withdrawn, 'evidence_due_by', d.evidence_due_by, 'created_at', d.created_at)
     ORDER BY d.id) FROM disputes d WHERE d.payment_id = p.id) AS disputes_json`;

function withAttempts(row: Record<string, any>): PaymentRecord {
  const payment = toPayment(row, (row.attempts_json as Record<string, any>[]).map(toAttempt));
  payment.disputes = ((row.disputes_json ?? []) as Record<string, any>[]).map((d) => ({
    id: d.id, amount: minorFromColumn(d.amount), currency: d.currency, reason: d.reason, stage: d.stage, status: d.status,
    fundsWithdrawn: d.funds_withdrawn, evidenceDueBy: d.evidence_due_by ? new Date(d.evidence_due_by) : null, createdAt: new Date(d.created_at),
  }));
  return payment;
}

/**
 * When an authorization was granted: the provider's answer sets processed_at. The fallback only
 * guards a path that reaches authorized without it. Migration 0004 indexes this very expression.
 */
const AUTHORIZED_AT = 'COALESCE(processed_at, updated_at)';

/** What attemptInFlightGuard's statement fails with when the attempt was settled elsewhere. */
export const ATTEMPT_SETTLED = 'SV001';

export interface PaymentFilter {
  statuses: string[];
  currency?: string;
  country?: string;
  paymentMethodType?: string;
  reference?: string;
  search?: string;
  createdFrom?: Date;
  createdTo?: Date;
  startingAfter?: string;
  limit: number;
}

export function createStore(pool: Pool) {
  const timelineId = monotonicIds();
  const groupCommit = createGroupCommit(pool);
  return {
    ...customerActionQueries(pool),

    transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
      return withTransaction(pool, fn);
    },

    /** The id a keyed request's key is bound to, in this scope (idempotency-bindings.ts). */
    boundResource(scope: Scope, binding: Binding, now: Date, db: Queryable = pool): Promise<string | undefined> {
      return boundResource(db, scope, binding, now);
    },

    bindingRow(scope: Scope, binding: Binding, at: Date, ttlMs: number): RowWrite {
      return bindingRow(scope, binding, at, new Date(at.getTime() + ttlMs));
    },

    /** Writes the rows as one statement (on `db`, or the pool); commit.ts is what writes a payment's changes. */
    async run(db: Queryable | undefined, rows: RowWrite[]): Promise<void> {
      await writeRows(db ?? pool, rows);
    },

    /**
     * Commits a change's rows, after the check that may refuse them (attemptInFlightGuard), as
     * run does; concurrent requests' changes share one statement and one commit
     * (platform/group-commit.ts).
     */
    commit(unit: Unit): Promise<void> {
      return groupCommit(unit);
    },

    /** Locks the payment (as every change to it does) and tells whether its attempt is still in flight. */
    async attemptStillInFlight(tx: Queryable, paymentId: string, attemptId: string): Promise<boolean> {
      const { rows } = await tx.query(
        `SELECT a.status, a.outcome FROM payments p JOIN payment_attempts a ON a.payment_id = p.id
         WHERE p.id = $1 AND a.id = $2 FOR UPDATE OF p`,
        [paymentId, attemptId],
      );
      return rows.length === 1 && rows[0].status === 'processing' && rows[0].outcome === null;
    },

    /** The check that makes a commit's rows apply only while the attempt is still in flight. */
    attemptInFlightGuard(paymentId: string, attemptId: string): CheckRow {
      return { shape: ATTEMPT_IN_FLIGHT, values: [paymentId, attemptId] };
    },

    /** The payment and the given attempts as they stand now. */
    savedRows(payment: PaymentRecord, attempts: AttemptRecord[]): RowWrite[] {
      return [
        row(PAYMENTS, valuesOf(PAYMENT_FIELDS, payment)),
        ...attempts.map((a) => row(ATTEMPTS, valuesOf(ATTEMPT_FIELDS, attemptRow(payment, a)))),
      ];
    },

    async addTimeline(db: Queryable, payment: PaymentRecord, entries: TimelineEntry[], at: Date): Promise<void> {
      if (entries.length > 0) await writeRows(db, this.timelineRows(payment, entries, at));
    },

    timelineRows(payment: PaymentRecord, entries: TimelineEntry[], at: Date): RowWrite[] {
      return entries.map((e) => row(TIMELINE, [
        timelineId(at), payment.id, payment.merchantId, payment.projectId, payment.mode, e.type, e.title,
        describeEntry(e, payment.currency), e.attemptId ?? null, JSON.stringify(e.data ?? {}), at,
      ]));
    },

    /** The payment's timeline in write order; undefined when the scope has no such payment. */
    async timeline(scope: Scope, paymentId: string): Promise<TimelineRow[] | undefined> {
      // One round trip: the payment row answers "exists in this scope", the join brings its entries.
      const { rows } = await pool.query(
        `SELECT t.id, t.type, t.title, t.description, t.attempt_id, t.data, t.created_at, p.currency
         FROM payments p LEFT JOIN timeline_events t ON t.payment_id = p.id
         WHERE p.id = $1 AND p.merchant_id = $2 AND p.project_id = $3 AND p.mode = $4
         ORDER BY t.id`,
        [paymentId, scope.merchantId, scope.projectId, scope.mode],
      );
      if (rows.length === 0) return undefined;
      return rows.filter((r) => r.id !== null).map((r) => ({
        id: r.id,
        type: r.type,
        title: r.title,
        // Entries stored before descriptions were written get theirs now, from the same sentences.
        description: r.description ?? describeEntry(r, r.currency),
        attemptId: r.attempt_id,
        data: r.data,
        createdAt: new Date(r.created_at),
      }));
    },

    async get(scope: Scope, id: string): Promise<PaymentRecord | undefined> {
      const { rows } = await pool.query(
        `SELECT ${WITH_ATTEMPTS} FROM payments p
         WHERE p.id = $1 AND p.merchant_id = $2 AND p.project_id = $3 AND p.mode = $4`,
        [id, scope.merchantId, scope.projectId, scope.mode],
      );
      return rows.length === 0 ? undefined : withAttempts(rows[0]);
    },

    /** Newest first by id (ids are time-ordered), `limit + 1` rows to know whether more follow. */
    async list(scope: Scope, f: PaymentFilter): Promise<{ payments: PaymentRecord[]; hasMore: boolean }> {
      const where = ['p.merchant_id = $1', 'p.project_id = $2', 'p.mode = $3'];
      const values: unknown[] = [scope.merchantId, scope.projectId, scope.mode];
      const add = (sql: (n: string) => string, value: unknown) => {
        values.push(value);
        where.push(sql(`$${values.length}`));
      };
      if (f.statuses.length > 0) add((n) => `p.status = ANY(${n})`, f.statuses);
      if (f.currency) add((n) => `p.currency = ${n}`, f.currency);
      if (f.country) add((n) => `p.country = ${n}`, f.country);
      if (f.paymentMethodType) add((n) => `p.payment_method_type = ${n}`, f.paymentMethodType);
      if (f.reference) add((n) => `p.reference = ${n}`, f.reference);
      if (f.search) {
        values.push(f.search);
        const exact = `$${values.length}`;
        // LIKE's wildcards in the merchant's text match themselves.
        values.push(`%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
        where.push(`(p.id = ${exact} OR p.reference = ${exact} OR p.customer->>'email' = ${exact}
                     OR p.description ILIKE $${values.length})`);
      }
      if (f.createdFrom) add((n) => `p.created_at >= ${n}`, f.createdFrom);
      if (f.createdTo) add((n) => `p.created_at < ${n}`, f.createdTo);
      if (f.startingAfter) add((n) => `p.id < ${n}`, f.startingAfter);
      values.push(f.limit + 1);
      const { rows } = await pool.query(
        `SELECT ${WITH_ATTEMPTS} FROM payments p WHERE ${where.join(' AND ')} ORDER BY p.id DESC LIMIT $${values.length}`,
        values,
      );
      return { payments: rows.slice(0, f.limit).map(withAttempts), hasMore: rows.length > f.limit };
    },

    /**
     * Locks the payment row for the rest of the transaction, then reads it. The read is a second
     * statement on purpose: under READ COMMITTED it takes a fresh snapshot, so it sees the attempts
     * a transaction that held the lock before us committed (one statement would see them stale).
     */
    async getForUpdate(tx: Queryable, scope: Scope, id: string): Promise<PaymentRecord | undefined> {
      const locked = await tx.query(
        `SELECT id FROM payments WHERE id = $1 AND merchant_id = $2 AND project_id = $3 AND mode = $4 FOR UPDATE`,
        [id, scope.merchantId, scope.projectId, scope.mode],
      );
      if (locked.rows.length === 0) return undefined;
      const { rows } = await tx.query(`SELECT ${WITH_ATTEMPTS} FROM payments p WHERE p.id = $1`, [id]);
      return withAttempts(rows[0]);
    },

    /**
     * Attempts whose outcome is still open, oldest first: `unknown`, or in flight since before
     * `inFlightBefore` (no request waits on them any more). Across all scopes: the platform's own
     * reconciliation. Read without locks: each is locked and checked again before it changes.
     */
    async openAttempts(inFlightBefore: Date, limit: number): Promise<Array<{ scope: Scope; paymentId: string; attemptId: string }>> {
      const { rows } = await pool.query(
        `SELECT a.id, a.payment_id, a.merchant_id, a.project_id, a.mode FROM payment_attempts a
         WHERE (a.status = 'unknown' OR (a.status = 'processing' AND a.outcome IS NULL AND a.updated_at < $1))
         ORDER BY a.updated_at, a.id LIMIT $2`,
        [inFlightBefore, limit],
      );
      return rows.map((r) => ({
        scope: create(ScopeSchema, { merchantId: r.merchant_id, projectId: r.project_id, mode: r.mode }),
        paymentId: r.payment_id,
        attemptId: r.id,
      }));
    },

    /**
     * Locks up to `limit` authorizations granted at or before `cutoff`, oldest first, skipping rows
     * another replica (or a capture or cancel) holds. Across all scopes: this is the platform's own
     * housekeeping, and every write that follows uses each payment's own scope.
     */
    async claimExpiredAuthorizations(tx: Queryable, cutoff: Date, limit: number): Promise<PaymentRecord[]> {
      const locked = await tx.query(
        `SELECT id FROM payments WHERE status = 'authorized' AND ${AUTHORIZED_AT} <= $1
         ORDER BY ${AUTHORIZED_AT}, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [cutoff, limit],
      );
      if (locked.rows.length === 0) return [];
      const { rows } = await tx.query(`SELECT ${WITH_ATTEMPTS} FROM payments p WHERE p.id = ANY($1) ORDER BY p.id`, [
        locked.rows.map((r) => r.id),
      ]);
      return rows.map(withAttempts);
    },

    /**
     * Locks up to `limit` payments whose customer action expired at or before `now`, skipping rows
     * another replica, or a customer completing the page right now, holds. Across all scopes, like
     * claimExpiredAuthorizations. `p.status` is re-checked on the locked row, so a payment the page
     * completed since this statement's snapshot is not returned. Sandbox pages only: a provider's own
     * page is ended by reconciliation after asking the provider (jobs/provider-actions.ts).
     */
    async claimExpiredCustomerActions(tx: Queryable, now: Date, limit: number): Promise<PaymentRecord[]> {
      const locked = await tx.query(
        `SELECT p.id FROM customer_actions c JOIN payments p ON p.id = c.payment_id
         WHERE c.completed_at IS NULL AND c.expires_at <= $1 AND p.status = 'processing' AND c.token_hash IS NOT NULL
         ORDER BY c.expires_at, p.id LIMIT $2 FOR UPDATE OF p SKIP LOCKED`,
        [now, limit],
      );
      if (locked.rows.length === 0) return [];
      const { rows } = await tx.query(`SELECT ${WITH_ATTEMPTS} FROM payments p WHERE p.id = ANY($1) ORDER BY p.id`, [
        locked.rows.map((r) => r.id),
      ]);
      return rows.map(withAttempts);
    },
  };
}

export type PaymentsStore = ReturnType<typeof createStore>;
