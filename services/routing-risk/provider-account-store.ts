import { withTransaction, type Pool, type Queryable } from '../platform/db.js';
import { lockProjectList } from '../platform/list-lock.js';
import { minorFromColumn } from '../contract/money.js';
import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import { scopeKey, type PlanningCache } from './planning-cache.js';

// Postgres access to the accounts merchants connect at licensed providers. The platform's shared
// demo accounts (project_id NULL) are never read or changed here.

export interface ConnectedAccount {
  id: string;
  merchantId: string;
  projectId: string;
  mode: string;
  providerCode: string;
  providerName: string;
  name: string;
  methods: string[];
  currencies: string[];
  countries: string[];
  feeFixed: bigint;
  feeBps: number;
  status: string;
  createdAt: Date;
  updatedAt: Date | null;
}

export type NewConnectedAccount = Pick<
  ConnectedAccount, 'id' | 'providerCode' | 'name' | 'methods' | 'currencies' | 'countries' | 'feeFixed' | 'feeBps'
>;

/** What a provider serves; empty lists mean any. */
export interface LicensedProvider {
  code: string;
  methods: string[];
  currencies: string[];
  countries: string[];
}

// Rows inserted by hand before the management API had no name: they show the provider's.
const COLUMNS = `a.id, a.merchant_id, a.project_id, a.mode, p.code, p.name AS provider_name,
  COALESCE(a.name, p.name) AS name, a.methods, a.currencies, a.countries, a.fee_fixed, a.fee_bps, a.status,
  a.created_at, a.updated_at`;
const FROM = `FROM provider_accounts a JOIN providers p ON p.id = a.provider_id`;

function toAccount(r: Record<string, any>): ConnectedAccount {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    projectId: r.project_id,
    mode: r.mode,
    providerCode: r.code,
    providerName: r.provider_name,
    name: r.name,
    methods: r.methods,
    currencies: r.currencies,
    countries: r.countries,
    feeFixed: minorFromColumn(r.fee_fixed),
    feeBps: r.fee_bps,
    status: r.status,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/**
 * Whether the scope already has `max` active accounts (besides `except`), under the scope's lock held
 * to the end of the caller's transaction: concurrent connects and enables count one at a time.
 */
async function activeAtCap(tx: Queryable, scope: Scope | ConnectedAccount, max: number, except = ''): Promise<boolean> {
  await lockProjectList(tx, 'routing_risk.provider_accounts', scope);
  const { rows } = await tx.query(
    `SELECT count(*)::int AS n FROM provider_accounts
     WHERE merchant_id = $1 AND project_id = $2 AND mode = $3 AND status = 'active' AND id <> $4`,
    [scope.merchantId, scope.projectId, scope.mode, except],
  );
  return rows[0].n >= max;
}

/** With the planning cache, a changed account's scope is dropped from it before the change is answered. */
export function createProviderAccountStore(pool: Pool, cache?: Pick<PlanningCache, 'drop'>) {
  async function get(id: string): Promise<ConnectedAccount | undefined> {
    const { rows } = await pool.query(`SELECT ${COLUMNS} ${FROM} WHERE a.id = $1 AND a.project_id IS NOT NULL`, [id]);
    return rows[0] && toAccount(rows[0]);
  }

  return {
    get,

    async licensedProvider(code: string): Promise<LicensedProvider | undefined> {
      const { rows } = await pool.query(
        `SELECT code, methods, currencies, countries FROM providers WHERE code = $1 AND kind = 'licensed'`, [code],
      );
      return rows[0];
    },

    async licensedCodes(): Promise<string[]> {
      const { rows } = await pool.query(`SELECT code FROM providers WHERE kind = 'licensed' ORDER BY code`);
      return rows.map((r) => r.code as string);
    },

    /** The account with this name in the scope, if any. */
    async named(scope: Scope, name: string): Promise<ConnectedAccount | undefined> {
      const { rows } = await pool.query(
        `SELECT ${COLUMNS} ${FROM} WHERE a.project_id = $1 AND a.mode = $2 AND a.name = $3`,
        [scope.projectId, scope.mode, name],
      );
      return rows[0] && toAccount(rows[0]);
    },

    /**
     * Inserts the account, active. Undefined when the id or the name is taken: the caller tells
     * a repeated create of the same id from a name used by another account. 'limit_reached' when
     * the scope has `max` active accounts (MAX_ACTIVE_PROVIDER_ACCOUNTS), counted under its lock.
     */
    async create(scope: Scope, a: NewConnectedAccount, at: Date, max: number): Promise<ConnectedAccount | 'limit_reached' | undefined> {
      const inserted = await withTransaction(pool, async (tx) => {
        if (await activeAtCap(tx, scope, max)) return 'limit_reached' as const;
        const { rowCount } = await tx.query(
          `INSERT INTO provider_accounts (id, provider_id, merchant_id, project_id, mode, status, fee_fixed, fee_bps, name,
             methods, currencies, countries, created_at, updated_at)
           SELECT $4, p.id, $1, $2, $3, 'active', $6, $7, $8, $9, $10, $11, $12, $12
           FROM providers p WHERE p.code = $5 AND p.kind = 'licensed'
           ON CONFLICT DO NOTHING`,
          [
            scope.merchantId, scope.projectId, scope.mode, a.id, a.providerCode, a.feeFixed, a.feeBps, a.name,
            a.methods, a.currencies, a.countries, at,
          ],
        );
        return rowCount === 1;
      });
      if (inserted === 'limit_reached') return inserted;
      if (inserted) cache?.drop(scopeKey(scope));
      return inserted ? get(a.id) : undefined;
    },

    /** A project's connected accounts, oldest first; every mode when mode is undefined. */
    async list(merchantId: string, projectId: string, mode: string | undefined): Promise<ConnectedAccount[]> {
      const { rows } = await pool.query(
        `SELECT ${COLUMNS} ${FROM}
         WHERE a.merchant_id = $1 AND a.project_id = $2 AND ($3::text IS NULL OR a.mode = $3)
         ORDER BY a.created_at, a.id`,
        [merchantId, projectId, mode ?? null],
      );
      return rows.map(toAccount);
    },

    /** Undefined when there is no such account; 'limit_reached' when enabling it would pass `max` active ones. */
    async setStatus(id: string, status: 'active' | 'disabled', at: Date, max: number): Promise<ConnectedAccount | 'limit_reached' | undefined> {
      const current = await get(id);
      if (!current) return undefined;
      const refused = await withTransaction(pool, async (tx) => {
        if (status === 'active' && await activeAtCap(tx, current, max, id)) return true;
        // An account already in that status keeps its updated_at: enabling twice is not an error, nor a change.
        await tx.query(
          `UPDATE provider_accounts SET status = $2, updated_at = $3 WHERE id = $1 AND project_id IS NOT NULL AND status <> $2`,
          [id, status, at],
        );
        return false;
      });
      if (refused) return 'limit_reached';
      cache?.drop(scopeKey(current));
      return get(id);
    },
  };
}

export type ProviderAccountStore = ReturnType<typeof createProviderAccountStore>;
