import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import { withTransaction, type Pool, type Queryable } from '../../platform/db.js';
import { row, type RowWrite, type TableShape } from '../../platform/row-writes.js';
import type { TokenBox } from './token-box.js';

/** A stored payment method. Its tokens are its credentials (below), never part of the method's record. */
export interface PaymentMethodRecord {
  id: string;
  merchantId: string;
  projectId: string;
  mode: string;
  type: string;
  /** The provider that issued the token it was created with (`provider_code`), as sent. */
  providerCode: string | null;
  customerId: string | null;
  customer: Record<string, string> | null;
  display: Record<string, string>;
  status: string;
  /** The scheme's id of its last customer-present payment, for merchant-initiated ones. */
  networkTransactionId: string | null;
  createdAt: Date;
}

/**
 * One way to charge a stored method: a provider's token (usable at that provider, at one account
 * of it when account-bound) or a vault's (forwarded by a connected vault). `token` leaves this part
 * only towards a connector.
 */
export interface CredentialRecord {
  id: string;
  paymentMethodId: string;
  kind: 'provider_token' | 'vault_token';
  providerCode: string | null;
  providerAccountId: string | null;
  vaultCode: string | null;
  token: string;
  createdAt: Date;
}

function toRecord(r: Record<string, any>): PaymentMethodRecord {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    projectId: r.project_id,
    mode: r.mode,
    type: r.type,
    providerCode: r.provider_code,
    customerId: r.customer_id,
    customer: r.customer,
    display: r.display,
    status: r.status,
    networkTransactionId: r.network_transaction_id ?? null,
    createdAt: r.created_at,
  };
}

function toCredential(r: Record<string, any>, tokens: TokenBox): CredentialRecord {
  return {
    id: r.id,
    paymentMethodId: r.payment_method_id,
    kind: r.kind,
    providerCode: r.provider_code,
    providerAccountId: r.provider_account_id,
    vaultCode: r.vault_code,
    token: tokens.open(r.token),
    createdAt: r.created_at,
  };
}

const SCOPED = 'merchant_id = $2 AND project_id = $3 AND mode = $4';
const scoped = (scope: Scope) => [scope.merchantId, scope.projectId, scope.mode];

/** A method's network transaction id, set on the method of that id in that scope. */
const NETWORK_TRANSACTION_IDS: TableShape = {
  table: 'payment_methods',
  columns: ['id', 'merchant_id', 'project_id', 'mode', 'network_transaction_id'].map((name) => ({ name, type: 'text' })),
  key: ['id', 'merchant_id', 'project_id', 'mode'],
  write: 'update',
  set: ['network_transaction_id'],
};

/** A unique index refused a second vault reference on one method. */
export const isSecondVault = (err: unknown): boolean =>
  (err as { constraint?: string })?.constraint === 'payment_method_credentials_one_vault';

/** Rows sealed per statement when the part starts (sealStoredTokens). */
const SEAL_BATCH = 500;

/**
 * Postgres access for payment methods and their credentials. Every read filters on merchant,
 * project and mode. Tokens are sealed with `tokens` as they are stored and opened as they are read.
 */
export function createPaymentMethodStore(pool: Pool, tokens: TokenBox) {
  async function insertCredential(scope: Scope, c: CredentialRecord, db: Queryable = pool): Promise<void> {
    await db.query(
      `INSERT INTO payment_method_credentials (id, payment_method_id, merchant_id, project_id, mode, kind, provider_code,
         provider_account_id, vault_code, token, created_at)
       VALUES ($1, $5, $2, $3, $4, $6, $7, $8, $9, $10, $11)`,
      [c.id, ...scoped(scope), c.paymentMethodId, c.kind, c.providerCode, c.providerAccountId, c.vaultCode, tokens.seal(c.token),
        c.createdAt],
    );
  }

  /** The method's credential ids, its row locked to the end of the transaction: additions and removals count one at a time. */
  async function lockedIds(db: Queryable, scope: Scope, paymentMethodId: string): Promise<string[]> {
    await db.query(`SELECT id FROM payment_methods WHERE id = $1 AND ${SCOPED} FOR UPDATE`, [paymentMethodId, ...scoped(scope)]);
    const { rows } = await db.query(
      `SELECT id FROM payment_method_credentials WHERE payment_method_id = $1 AND ${SCOPED}`,
      [paymentMethodId, ...scoped(scope)],
    );
    return rows.map((r) => r.id);
  }

  return {
    /** The method and its first credential, in one statement so neither exists without the other. */
    async insert(pm: PaymentMethodRecord, first: CredentialRecord): Promise<void> {
      await pool.query(
        `WITH pm AS (
           INSERT INTO payment_methods (id, merchant_id, project_id, mode, type, provider_code, customer_id, customer,
             display, status, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id)
         INSERT INTO payment_method_credentials (id, payment_method_id, merchant_id, project_id, mode, kind, provider_code,
           provider_account_id, vault_code, token, created_at)
         SELECT $12, pm.id, $2, $3, $4, $13, $14, $15, $16, $17, $11 FROM pm`,
        [
          pm.id, pm.merchantId, pm.projectId, pm.mode, pm.type, pm.providerCode, pm.customerId,
          pm.customer && JSON.stringify(pm.customer), JSON.stringify(pm.display), pm.status, pm.createdAt,
          first.id, first.kind, first.providerCode, first.providerAccountId, first.vaultCode, tokens.seal(first.token),
        ],
      );
    },

    async get(scope: Scope, id: string, db: Queryable = pool): Promise<PaymentMethodRecord | undefined> {
      const { rows } = await db.query(`SELECT * FROM payment_methods WHERE id = $1 AND ${SCOPED}`, [id, ...scoped(scope)]);
      return rows[0] && toRecord(rows[0]);
    },

    /**
     * Adds a credential unless the method already holds `max` (MAX_PAYMENT_METHOD_CREDENTIALS):
     * 'limit_reached' then, with nothing stored.
     */
    async addCredential(scope: Scope, c: CredentialRecord, max: number): Promise<'added' | 'limit_reached'> {
      return withTransaction(pool, async (db) => {
        if ((await lockedIds(db, scope, c.paymentMethodId)).length >= max) return 'limit_reached';
        await insertCredential(scope, c, db);
        return 'added';
      });
    },

    /** Keeps the scheme's id of a customer-present payment on the method, in the caller's commit. */
    networkTransactionIdRow(scope: Scope, id: string, networkTransactionId: string): RowWrite {
      return row(NETWORK_TRANSACTION_IDS, [id, ...scoped(scope), networkTransactionId]);
    },

    /** Oldest first: the order they were added in. */
    async credentials(scope: Scope, paymentMethodId: string, db: Queryable = pool): Promise<CredentialRecord[]> {
      const { rows } = await db.query(
        `SELECT * FROM payment_method_credentials WHERE payment_method_id = $1 AND ${SCOPED} ORDER BY id`,
        [paymentMethodId, ...scoped(scope)],
      );
      return rows.map((r) => toCredential(r, tokens));
    },

    /**
     * The removed credential; undefined when the method has no such credential in this scope;
     * 'last' when it is the method's only one (a method keeps at least one way to be charged). The
     * method's row is locked so two removals cannot take its last two credentials at once.
     */
    async removeCredential(scope: Scope, paymentMethodId: string, id: string): Promise<CredentialRecord | 'last' | undefined> {
      return withTransaction(pool, async (db) => {
        const ids = await lockedIds(db, scope, paymentMethodId);
        if (!ids.includes(id)) return undefined;
        if (ids.length === 1) return 'last';
        const removed = await db.query(
          `DELETE FROM payment_method_credentials WHERE id = $5 AND payment_method_id = $1 AND ${SCOPED} RETURNING *`,
          [paymentMethodId, ...scoped(scope), id],
        );
        return toCredential(removed.rows[0], tokens);
      });
    },

    /**
     * Seals the tokens stored before (as they were, or `plain:` without the key), and during a
     * rotation those sealed under the other key, with the key in use; each row only if unchanged
     * meanwhile. Pages by id; outside a rotation through the partial index of migration 0024, so a
     * start with nothing left to seal reads nothing. Returns how many were sealed.
     */
    async sealStoredTokens(): Promise<number> {
      if (!tokens.sealing) return 0;
      let sealed = 0;
      for (let after = ''; ;) {
        const { rows } = await pool.query(
          `SELECT id, token FROM payment_method_credentials
           WHERE ($3 OR token NOT LIKE 'aes256gcm:%') AND id > $1 ORDER BY id LIMIT $2`,
          [after, SEAL_BATCH, tokens.rotating],
        );
        if (rows.length === 0) return sealed;
        const stale = rows.filter((r) => !tokens.current(r.token));
        const { rowCount } = await pool.query(
          `UPDATE payment_method_credentials c SET token = v.sealed
           FROM unnest($1::text[], $2::text[], $3::text[]) AS v (id, stored, sealed)
           WHERE c.id = v.id AND c.token = v.stored`,
          [stale.map((r) => r.id), stale.map((r) => r.token), stale.map((r) => tokens.seal(tokens.open(r.token)))],
        );
        sealed += rowCount ?? 0;
        after = rows.at(-1)!.id;
      }
    },
  };
}

export type PaymentMethodStore = ReturnType<typeof createPaymentMethodStore>;
