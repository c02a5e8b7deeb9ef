import { randomBytes } from 'node:crypto';
import { createBatcher } from '../../services/platform/batcher.js';
import { prepared, type Pool } from '../../services/platform/db.js';
import { refusedByPostgres } from '../../services/platform/group-commit.js';

/**
 * Idempotency records: a request claims (API key, Idempotency-Key), runs, then completes the row
 * with its response or releases it. Every time is passed in by the caller (the gateway's clock).
 */

export interface IdempotencyScope {
  apiKeyId: string;
  key: string;
}

export interface ClaimRequest extends IdempotencyScope {
  requestHash: string;
  now: Date;
  /** Until when the claim holds against retries; after it the request is taken as dead. */
  lockedUntil: Date;
  /** When the record (claim or response) may be forgotten and the key reused. */
  expiresAt: Date;
}

export type ClaimResult =
  /** This request runs; `token` proves ownership when completing or releasing. */
  | { outcome: 'claimed'; token: string }
  /** The key was used for a different request. */
  | { outcome: 'mismatch' }
  /** The same request is running elsewhere and its lock has not expired. */
  | { outcome: 'in_progress' }
  | { outcome: 'completed'; status: number; body: string };

// A claimed-then-released (deleted) or freshly expired row can vanish between the claim and the
// read of the winner; another claim attempt settles it. Two retries cover any realistic race.
const CLAIM_ATTEMPTS = 3;

// The claim: a new key, an expired record, or the same request's lapsed lock (its runner died) is
// taken; a lapsed lock of a different request is not: that request may have created something, so
// its key is not free for another body. `now` is the row's created_at (EXCLUDED.created_at).
const CLAIM_CONFLICT = `
  ON CONFLICT (api_key_id, idempotency_key) DO UPDATE SET
    request_hash = EXCLUDED.request_hash, state = 'in_progress', locked_by = EXCLUDED.locked_by,
    locked_until = EXCLUDED.locked_until, response_status = NULL, response_body = NULL,
    expires_at = EXCLUDED.expires_at, created_at = EXCLUDED.created_at
  WHERE k.expires_at <= EXCLUDED.created_at
     OR (k.state = 'in_progress' AND k.locked_until <= EXCLUDED.created_at AND k.request_hash = EXCLUDED.request_hash)
  RETURNING locked_by`;
const CLAIM_COLUMNS = '(api_key_id, idempotency_key, request_hash, state, locked_by, locked_until, expires_at, created_at)';
const CLAIM_SQL = `INSERT INTO idempotency_keys AS k ${CLAIM_COLUMNS} VALUES ($1, $2, $3, 'in_progress', $4, $5, $6, $7) ${CLAIM_CONFLICT}`;
// The claims of the requests that arrived together, one row each (parallel arrays).
const CLAIM_BATCH_SQL = `INSERT INTO idempotency_keys AS k ${CLAIM_COLUMNS}
  SELECT a, i, h, 'in_progress', t, u, e, c
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[], $7::timestamptz[]) AS r(a, i, h, t, u, e, c)
  ${CLAIM_CONFLICT}`;

/** Claims arriving together at most: one statement's arrays. */
const MAX_CLAIM_BATCH = 64;

interface Claim extends ClaimRequest {
  token: string;
}

const claimValues = (c: Claim) => [c.apiKeyId, c.key, c.requestHash, c.token, c.lockedUntil, c.expiresAt, c.now];

export function createIdempotencyStore(pool: Pool) {
  const alone = async (c: Claim) => (await pool.query(prepared(CLAIM_SQL, claimValues(c)))).rowCount === 1;
  // Claims made while one is under way share the next statement (createBatcher); alone, a claim is
  // the statement it always was. One upsert cannot hit a row twice, so of the claims of one key in
  // a batch only the first is in it: the others come after it, as a concurrent duplicate does
  // today, and read the first's record (in progress, or another request's). A batch Postgres
  // refuses (a deadlock against another replica's) claimed nothing: each claim is made again alone.
  const claim = createBatcher(async (batch: Claim[]): Promise<boolean[]> => {
    if (batch.length === 1) return [await alone(batch[0])];
    const seen = new Set<string>();
    const firsts = batch.filter((c) => {
      const scope = JSON.stringify([c.apiKeyId, c.key]);
      return !seen.has(scope) && !!seen.add(scope);
    });
    try {
      const values = firsts.map(claimValues);
      const { rows } = await pool.query(prepared(CLAIM_BATCH_SQL, values[0].map((_, i) => values.map((v) => v[i]))));
      const claimed = new Set(rows.map((r) => r.locked_by));
      return batch.map((c) => claimed.has(c.token));
    } catch (err) {
      if (!refusedByPostgres(err)) throw err;
      return Promise.all(batch.map(alone));
    }
  }, MAX_CLAIM_BATCH);

  return {
    /** One atomic claim (CLAIM_CONFLICT); what holds the key otherwise, read after it. */
    async claimIdempotencyKey(req: ClaimRequest): Promise<ClaimResult> {
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
        const token = randomBytes(16).toString('hex');
        if (await claim({ ...req, token })) return { outcome: 'claimed', token };

        const { rows } = await pool.query(
          `SELECT request_hash, state, response_status, response_body FROM idempotency_keys
           WHERE api_key_id = $1 AND idempotency_key = $2`,
          [req.apiKeyId, req.key],
        );
        const row = rows[0];
        if (!row) continue;
        if (row.request_hash !== req.requestHash) return { outcome: 'mismatch' };
        if (row.state === 'completed') {
          return { outcome: 'completed', status: row.response_status, body: row.response_body };
        }
        return { outcome: 'in_progress' };
      }
      // Still contended after several rounds: report it as running so the client retries shortly.
      return { outcome: 'in_progress' };
    },

    /** Records the response of a claimed request; false when the claim was lost (lock taken over). */
    async completeIdempotencyKey(scope: IdempotencyScope, token: string, status: number, body: string) {
      const { rowCount } = await pool.query(prepared(
        `UPDATE idempotency_keys
         SET state = 'completed', response_status = $4, response_body = $5, locked_by = NULL, locked_until = NULL
         WHERE api_key_id = $1 AND idempotency_key = $2 AND locked_by = $3`,
        [scope.apiKeyId, scope.key, token, status, body],
      ));
      return rowCount === 1;
    },

    /** Forgets a claimed request without a response, so a retry runs it again. */
    async releaseIdempotencyKey(scope: IdempotencyScope, token: string) {
      const { rowCount } = await pool.query(
        `DELETE FROM idempotency_keys WHERE api_key_id = $1 AND idempotency_key = $2 AND locked_by = $3`,
        [scope.apiKeyId, scope.key, token],
      );
      return rowCount === 1;
    },

    /** Deletes up to `limit` expired records; returns how many went. */
    async deleteExpiredIdempotencyKeys(now: Date, limit = 1000): Promise<number> {
      const { rowCount } = await pool.query(
        `DELETE FROM idempotency_keys WHERE ctid IN (
           SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
        [now, limit],
      );
      return rowCount ?? 0;
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
