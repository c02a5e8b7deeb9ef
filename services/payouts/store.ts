import type { Scope as ScopeMessage } from '../../proto/gen/svc/common/v1/common_pb.js';
import { withTransaction, type Pool, type PoolClient, type Queryable } from '../platform/db.js';
import { asJson, columnsOf, valuesOf, type FieldMap } from '../platform/field-map.js';
import { bindingRow, boundResource, type Binding } from '../platform/idempotency-bindings.js';
import { writeRows } from '../platform/row-writes.js';
import type { PayoutRecord } from './model.js';
import { minorFromColumn } from '../contract/money.js';

/** Postgres access of payouts. Every read filters on merchant, project and mode. */

const FIELDS: FieldMap<PayoutRecord> = {
  id: 'id', merchant_id: 'merchantId', project_id: 'projectId', mode: 'mode', status: 'status', amount: 'amount',
  currency: 'currency', destination_type: (p) => p.destination.type, destination_token: (p) => p.destination.token,
  destination_display: (p) => p.destination.display, destination_holder_name: (p) => p.destination.holderName,
  destination_country: (p) => p.destination.country, description: 'description', reference: 'reference',
  metadata: asJson('metadata'), test_scenario: 'testScenario', provider_id: 'providerId', provider_code: 'providerCode',
  provider_name: 'providerName', provider_account_id: 'providerAccountId', provider_payout_id: 'providerPayoutId',
  routing_rule: 'routingRule', fee_amount: 'feeAmount', failure: asJson('failure'), send_after: 'sendAfter',
  sent_at: 'sentAt', created_at: 'createdAt', updated_at: 'updatedAt',
};
const COLUMNS = columnsOf(FIELDS);

function toPayout(r: Record<string, any>): PayoutRecord {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    projectId: r.project_id,
    mode: r.mode,
    status: r.status,
    amount: minorFromColumn(r.amount),
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
    feeAmount: minorFromColumn(r.fee_amount),
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
      await writeRows(tx, [bindingRow(scope, binding, at, new Date(at.getTime() + ttlMs))]);
    },
    transaction: <T>(fn: (tx: PoolClient) => Promise<T>) => withTransaction(pool, fn),

    async insert(tx: Queryable, p: PayoutRecord): Promise<void> {
      await tx.query(
        `INSERT INTO payouts (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
        valuesOf(FIELDS, p),
      );
    },

    /** Writes what changes after creation: status, the provider's answer, the fee and times. */
    async save(tx: Queryable, p: PayoutRecord): Promise<void> {
      await tx.query(
        `UPDATE payouts SET ${MUTABLE.map((c, i) => `${c} = $${i + 2}`).join(', ')} WHERE id = $1`,
        [p.id, ...valuesOf(FIELDS, p, MUTABLE)],
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
     * Takes up to `limit` payouts sent (`pending`) or awaiting their provider (`processing`) that
     * are due to be asked again: at their next_poll_at (a provider's `pending`, poll-schedule.ts),
     * else once untouched since before `before` (their answer was lost, or their process died
     * mid-call). Taking one moves its `updated_at` to `now` and clears its next_poll_at, a lease
     * other replicas respect; the answer recorded then schedules the next one.
     */
    async claimStale(tx: Queryable, before: Date, now: Date, limit: number): Promise<PayoutRecord[]> {
      const { rows } = await tx.query(
        `UPDATE payouts SET updated_at = $2, next_poll_at = NULL
         WHERE id IN (SELECT id FROM payouts WHERE status IN ('pending', 'processing')
                        AND (next_poll_at <= $2 OR (next_poll_at IS NULL AND updated_at < $1))
                      ORDER BY COALESCE(next_poll_at, updated_at) LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [before, now, limit],
      );
      return rows.map(toPayout);
    },

    /** Counts one more answer that found the payout pending and sets when it is asked next. */
    async schedulePoll(tx: Queryable, id: string, at: Date, delayMs: (polls: number) => number): Promise<void> {
      const { rows } = await tx.query('UPDATE payouts SET polls = polls + 1 WHERE id = $1 RETURNING polls', [id]);
      await tx.query('UPDATE payouts SET next_poll_at = $2 WHERE id = $1', [id, new Date(at.getTime() + delayMs(rows[0].polls))]);
    },

    /**
     * The payout a provider's notification names, among this account's only: by our payout id when
     * the provider echoes it, else by the provider's payout id.
     */
    async findAtProvider(accountId: string, payoutId: string | null, providerPayoutId: string | null): Promise<PayoutRecord | undefined> {
      const { rows } = await pool.query(
        `SELECT * FROM payouts WHERE provider_account_id = $1 AND (id = $2 OR ($2::text IS NULL AND provider_payout_id = $3))
         LIMIT 1`,
        [accountId, payoutId, providerPayoutId],
      );
      return rows[0] && toPayout(rows[0]);
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
      return minorFromColumn(rows[0].committed);
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
