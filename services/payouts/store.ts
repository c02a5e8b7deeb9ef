import type { Scope as ScopeMessage } from '../../proto/gen/svc/common/v1/common_pb.js';
import {
  bindStatement, boundResource, withTransaction, type Binding, type Pool, type PoolClient, type Queryable,
} from '../shared/index.js';
import type { PayoutRecord } from './model.js';

/** Postgres access of payouts. Every read filters on merchant, project and mode. */

const COLUMNS = [
  'id', 'merchant_id', 'project_id', 'mode', 'status', 'amount', 'currency', 'destination_type', 'destination_token',
  'destination_display', 'destination_holder_name', 'destination_country', 'description', 'reference', 'metadata',
  'test_scenario', 'provider_id', 'provider_code', 'provider_name', 'provider_account_id', 'provider_payout_id',
  'routing_rule', 'fee_amount', 'failure', 'send_after', 'sent_at', 'created_at', 'updated_at',
] as const;

function values(p: PayoutRecord): unknown[] {
  const d = p.destination;
  return [
    p.id, p.merchantId, p.projectId, p.mode, p.status, p.amount, p.currency, d.type, d.token, d.display, d.holderName,
    d.country, p.description, p.reference, JSON.stringify(p.metadata), p.testScenario, p.providerId, p.providerCode,
    p.providerName, p.providerAccountId, p.providerPayoutId, p.routingRule, p.feeAmount,
    p.failure && JSON.stringify(p.failure), p.sendAfter, p.sentAt, p.createdAt, p.updatedAt,
  ];
}

function toPayout(r: Record<string, any>): PayoutRecord {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    projectId: r.project_id,
    mode: r.mode,
    status: r.status,
    amount: BigInt(r.amount),
    currency: r.currency,
    destination: {
      type: r.destination_type,
      token: r.destination_token,
      display: r.destination_display,
      holderName: r.destination_holder_name,
      country: r.destination_country,
    },
    description: r.description,
    reference: r.reference,
    metadata: r.metadata,
    testScenario: r.test_scenario,
    providerId: r.provider_id,
    providerCode: r.provider_code,
    providerName: r.provider_name,
    providerAccountId: r.provider_account_id,
    providerPayoutId: r.provider_payout_id,
    routingRule: r.routing_rule,
    feeAmount: BigInt(r.fee_amount),
    failure: r.failure,
    sendAfter: new Date(r.send_after),
    sentAt: r.sent_at ? new Date(r.sent_at) : null,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

/** A scope as the proto carries it or as a stored payout names it. */
export type Scope = Pick<ScopeMessage, 'merchantId' | 'projectId' | 'mode'>;

const SCOPE = 'merchant_id = $1 AND project_id = $2 AND mode = $3';
const scopeValues = (s: Scope) => [s.merchantId, s.projectId, s.mode];
const MUTABLE = ['status', 'provider_payout_id', 'fee_amount', 'failure', 'sent_at', 'updated_at'] as const;

export function createPayoutStore(pool: Pool) {
  return {
    /** The payout a keyed request's key is bound to, in this scope (idempotency-bindings.ts). */
    boundResource: (scope: Scope, binding: Binding, now: Date) => boundResource(pool, scope, binding, now),

    async bind(tx: Queryable, scope: Scope, binding: Binding, at: Date, ttlMs: number): Promise<void> {
      const { text, values } = bindStatement(scope, binding, at, new Date(at.getTime() + ttlMs));
      await tx.query(text, values);
    },
    transaction: <T>(fn: (tx: PoolClient) => Promise<T>) => withTransaction(pool, fn),

    async insert(tx: Queryable, p: PayoutRecord): Promise<void> {
      await tx.query(
        `INSERT INTO payouts (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
        values(p),
      );
    },

    /** Writes what changes after creation: status, the provider's answer, the fee and times. */
    async save(tx: Queryable, p: PayoutRecord): Promise<void> {
      await tx.query(
        `UPDATE payouts SET ${MUTABLE.map((c, i) => `${c} = $${i + 2}`).join(', ')} WHERE id = $1`,
        [p.id, p.status, p.providerPayoutId, p.feeAmount, p.failure && JSON.stringify(p.failure), p.sentAt, p.updatedAt],
      );
    },

    async get(scope: Scope, id: string): Promise<PayoutRecord | undefined> {
      const { rows } = await pool.query(`SELECT * FROM payouts WHERE ${SCOPE} AND id = $4`, [...scopeValues(scope), id]);
      return rows[0] && toPayout(rows[0]);
    },

    async getForUpdate(tx: Queryable, scope: Scope, id: string): Promise<PayoutRecord | undefined> {
      const { rows } = await tx.query(`SELECT * FROM payouts WHERE ${SCOPE} AND id = $4 FOR UPDATE`, [...scopeValues(scope), id]);
      return rows[0] && toPayout(rows[0]);
    },

    async list(
      scope: Scope, f: { statuses: string[]; startingAfter?: string; limit: number },
    ): Promise<{ payouts: PayoutRecord[]; hasMore: boolean }> {
      const { rows } = await pool.query(
        `SELECT * FROM payouts WHERE ${SCOPE} AND (cardinality($4::text[]) = 0 OR status = ANY($4))
           AND ($5::text IS NULL OR id < $5)
         ORDER BY id DESC LIMIT $6`,
        [...scopeValues(scope), f.statuses, f.startingAfter ?? null, f.limit + 1],
      );
      return { payouts: rows.slice(0, f.limit).map(toPayout), hasMore: rows.length > f.limit };
    },

    /**
     * Queued payouts due at `now`, moved to `pending` (being sent: no longer cancellable) in one
     * statement. SKIP LOCKED lets replicas share the work and lets a merchant's concurrent cancel,
     * which holds the row, win cleanly.
     */
    async claimDue(tx: Queryable, now: Date, limit: number): Promise<PayoutRecord[]> {
      const { rows } = await tx.query(
        `UPDATE payouts SET status = 'pending', updated_at = $1
         WHERE id IN (SELECT id FROM payouts WHERE status = 'created' AND send_after <= $1
                      ORDER BY send_after LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [now, limit],
      );
      return rows.map(toPayout);
    },

    /**
     * Takes up to `limit` payouts sent (`pending`) or awaiting their provider (`processing`)
     * since before `before`: their answer was lost, or their process died mid-call. Taking one
     * moves its `updated_at` to `now`, a lease other replicas respect.
     */
    async claimStale(tx: Queryable, before: Date, now: Date, limit: number): Promise<PayoutRecord[]> {
      const { rows } = await tx.query(
        `UPDATE payouts SET updated_at = $2
         WHERE id IN (SELECT id FROM payouts WHERE status IN ('pending', 'processing') AND updated_at < $1
                      ORDER BY updated_at LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [before, now, limit],
      );
      return rows.map(toPayout);
    },

    /** Locks the scope's funds row for this currency (creating it) and returns what is committed. */
    async lockFunds(tx: Queryable, scope: Scope, currency: string): Promise<bigint> {
      await tx.query(
        `INSERT INTO payout_funds (merchant_id, project_id, mode, currency) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
        [...scopeValues(scope), currency],
      );
      const { rows } = await tx.query(
        `SELECT committed FROM payout_funds WHERE ${SCOPE} AND currency = $4 FOR UPDATE`,
        [...scopeValues(scope), currency],
      );
      return BigInt(rows[0].committed);
    },

    /** Adds to (or, with a negative delta, releases from) what the scope's payouts have committed. */
    async commitFunds(tx: Queryable, p: PayoutRecord, delta: bigint): Promise<void> {
      await tx.query(
        `UPDATE payout_funds SET committed = committed + $5 WHERE ${SCOPE} AND currency = $4`,
        [p.merchantId, p.projectId, p.mode, p.currency, delta],
      );
    },
  };
}

export type PayoutStore = ReturnType<typeof createPayoutStore>;
