import type { Pool } from '../../platform/db.js';

/** Postgres reads of provider settlements: which of our payments an attempt id a provider echoed belongs to. */
export function createSettlementLookups(pool: Pool) {
  return {
    /** Payment ids by attempt id, for the attempts of `providerAccountId` among `attemptIds`. */
    async paymentsOfAttempts(providerAccountId: string, attemptIds: string[]): Promise<Map<string, string>> {
      if (attemptIds.length === 0) return new Map();
      const { rows } = await pool.query(
        'SELECT id, payment_id FROM payment_attempts WHERE provider_account_id = $1 AND id = ANY($2::text[])',
        [providerAccountId, attemptIds],
      );
      return new Map(rows.map((r) => [r.id as string, r.payment_id as string]));
    },
  };
}

export type SettlementLookups = ReturnType<typeof createSettlementLookups>;
