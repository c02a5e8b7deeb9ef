import { randomBytes } from 'node:crypto';
import { prepared, type Pool } from '../../services/platform/index.js';

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

export function createIdempotencyStore(pool: Pool) {
  return {
    /**
     * One atomic statement claims the key when it is new, when its record has expired, or when the
     * same request's lock has lapsed (its runner died). A lapsed lock of a different request is not
     * taken over: that request may have created something, so its key is not free for another body.
     */
    async claimIdempotencyKey(req: ClaimRequest): Promise<ClaimResult> {
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
        const token = randomBytes(16).toString('hex');
        const claimed = await pool.query(prepared(
          `INSERT INTO idempotency_keys AS k
             (api_key_id, idempotency_key, request_hash, state, locked_by, locked_until, expires_at, created_at)
           VALUES ($1, $2, $3, 'in_progress', $4, $5, $6, $7)
           ON CONFLICT (api_key_id, idempotency_key) DO UPDATE SET
             request_hash = EXCLUDED.request_hash, state = 'in_progress', locked_by = EXCLUDED.locked_by,
             locked_until = EXCLUDED.locked_until, response_status = NULL, response_body = NULL,
             expires_at = EXCLUDED.expires_at, created_at = EXCLUDED.created_at
           WHERE k.expires_at <= $7
              OR (k.state = 'in_progress' AND k.locked_until <= $7 AND k.request_hash = EXCLUDED.request_hash)
           RETURNING locked_by`,
          [req.apiKeyId, req.key, req.requestHash, token, req.lockedUntil, req.expiresAt, req.now],
        ));
        if (claimed.rowCount === 1) return { outcome: 'claimed', token };

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
