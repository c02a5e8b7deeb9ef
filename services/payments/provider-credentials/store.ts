import type { Pool } from '../../platform/db.js';
import { createSecretBox, type SecretBox } from '../../platform/secret-box.js';
import type { AccountCredentials, CredentialSource } from '../../connectors/types.js';

// The provider_credentials table. Values are sealed as one JSON object; they leave this module
// only through `source()`, the CredentialSource handed to connectors.

export const PROVIDER_SECRET_KEY = 'PROVIDER_SECRET_KEY';

export interface CredentialsRecord {
  providerAccountId: string;
  providerCode: string;
  mode: 'test' | 'live';
  /** The names of the stored fields, never their values. */
  fields: string[];
  updatedAt: Date;
}

export interface NewCredentials {
  providerAccountId: string;
  merchantId: string;
  projectId: string;
  mode: 'test' | 'live';
  providerCode: string;
  values: Record<string, string>;
}

const COLUMNS = 'provider_account_id, provider_code, mode, fields, updated_at';

function toRecord(r: Record<string, any>): CredentialsRecord {
  return {
    providerAccountId: r.provider_account_id, providerCode: r.provider_code, mode: r.mode, fields: r.fields,
    updatedAt: r.updated_at,
  };
}

/** Rows sealed anew per page during a rotation (resealOtherKeys). */
const RESEAL_BATCH = 200;

/**
 * `key`: PROVIDER_SECRET_KEY; without it nothing can be stored (SecretKeyMissingError) and nothing
 * read. `other`: PROVIDER_SECRET_KEY_OTHER during a rotation, opened with too, never sealed with.
 */
export function createCredentialStore(pool: Pool, key: Buffer | undefined, other?: Buffer) {
  // Provider keys move money: unlike webhook secrets they are never stored unencrypted.
  const box: SecretBox = createSecretBox(key, { variable: PROVIDER_SECRET_KEY, allowPlain: false, other });

  return {
    /** Stores or replaces an account's credentials (a repeated connect of the same account id). */
    async put(c: NewCredentials, at: Date): Promise<CredentialsRecord> {
      const sealed = box.seal(JSON.stringify(c.values));
      const { rows } = await pool.query(
        `INSERT INTO provider_credentials (provider_account_id, merchant_id, project_id, mode, provider_code, fields, sealed,
           created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
         ON CONFLICT (provider_account_id) DO UPDATE SET fields = EXCLUDED.fields, sealed = EXCLUDED.sealed,
           updated_at = EXCLUDED.updated_at
           WHERE provider_credentials.project_id = EXCLUDED.project_id AND provider_credentials.mode = EXCLUDED.mode
             AND provider_credentials.provider_code = EXCLUDED.provider_code
         RETURNING ${COLUMNS}`,
        [c.providerAccountId, c.merchantId, c.projectId, c.mode, c.providerCode, Object.keys(c.values).sort(), sealed, at],
      );
      if (!rows[0]) throw new Error(`provider account ${c.providerAccountId} has credentials of another project or provider`);
      return toRecord(rows[0]);
    },

    async describe(providerAccountId: string): Promise<CredentialsRecord | undefined> {
      const { rows } = await pool.query(
        `SELECT ${COLUMNS} FROM provider_credentials WHERE provider_account_id = $1`, [providerAccountId],
      );
      return rows[0] && toRecord(rows[0]);
    },

    /** Whether the account's credentials belong to this merchant, project and mode (and provider). */
    async belongsTo(providerAccountId: string, scope: { merchantId: string; projectId: string; mode: string }, providerCode: string): Promise<boolean> {
      const { rowCount } = await pool.query(
        `SELECT 1 FROM provider_credentials
         WHERE provider_account_id = $1 AND merchant_id = $2 AND project_id = $3 AND mode = $4 AND provider_code = $5`,
        [providerAccountId, scope.merchantId, scope.projectId, scope.mode, providerCode],
      );
      return rowCount === 1;
    },

    async delete(providerAccountId: string): Promise<boolean> {
      const { rowCount } = await pool.query('DELETE FROM provider_credentials WHERE provider_account_id = $1', [providerAccountId]);
      return rowCount === 1;
    },

    /**
     * The destinations of the scope's vault connections (the non-secret `destinations` field of each
     * account of a vault provider): which providers each forwards to. Whether a connection is
     * enabled, and its fee, are routing-risk's (its provider account). `accountId` is the connection
     * a forwarded attempt goes through.
     */
    async vaultDestinations(
      scope: { merchantId: string; projectId: string; mode: string }, vaultProviders: Map<string, string>,
    ): Promise<Array<{ vault: string; accountId: string; destinations: string[] }>> {
      if (vaultProviders.size === 0) return [];
      const { rows } = await pool.query(
        `SELECT provider_account_id, provider_code, sealed FROM provider_credentials
         WHERE merchant_id = $1 AND project_id = $2 AND mode = $3 AND provider_code = ANY($4::text[])`,
        [scope.merchantId, scope.projectId, scope.mode, [...vaultProviders.keys()]],
      );
      return rows.map((r) => ({
        vault: vaultProviders.get(r.provider_code)!,
        accountId: r.provider_account_id,
        destinations: String(JSON.parse(box.open(r.sealed)).destinations ?? '').split(',').map((d) => d.trim()).filter(Boolean),
      }));
    },

    /**
     * During a rotation (with `other`): seals anew under `key` the credentials sealed under `other`,
     * each only if unchanged meanwhile (a connect racing it wins). Returns how many.
     */
    async resealOtherKeys(): Promise<number> {
      if (!key || !other) return 0;
      let resealed = 0;
      for (let after = ''; ;) {
        const { rows } = await pool.query(
          `SELECT provider_account_id AS id, sealed FROM provider_credentials WHERE provider_account_id > $1
           ORDER BY provider_account_id LIMIT $2`,
          [after, RESEAL_BATCH],
        );
        if (rows.length === 0) return resealed;
        for (const r of rows.filter((row) => !box.current(row.sealed))) {
          const { rowCount } = await pool.query(
            'UPDATE provider_credentials SET sealed = $3 WHERE provider_account_id = $1 AND sealed = $2',
            [r.id, r.sealed, box.seal(box.open(r.sealed))],
          );
          resealed += rowCount ?? 0;
        }
        after = rows.at(-1)!.id;
      }
    },

    /** What connectors read their account's credentials through. */
    source(): CredentialSource {
      return {
        async get(accountId): Promise<AccountCredentials | undefined> {
          const { rows } = await pool.query(
            'SELECT mode, sealed FROM provider_credentials WHERE provider_account_id = $1', [accountId],
          );
          if (!rows[0]) return undefined;
          return { mode: rows[0].mode, values: JSON.parse(box.open(rows[0].sealed)) };
        },
      };
    },
  };
}

export type CredentialStore = ReturnType<typeof createCredentialStore>;
