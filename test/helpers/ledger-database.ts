// The ledger consumer on a database of its own, for the tests of what it records: a fresh database
// with the ledger's schema, consumers on any pool (a counting or failing wrapper of the real one
// included), and the events it is handed, in one merchant's test-mode project.
import { createLedgerConsumer } from '../../services/ledger/index.js';
import { type EventEnvelope } from '../../services/contract/index.js';
import { systemClock } from '../../services/platform/clock.js';
import { createPool, type Pool } from '../../services/platform/db.js';
import { newId } from '../../services/platform/ids.js';
import { createLogger } from '../../services/platform/logger.js';
import { migrate } from '../../services/platform/migrate.js';
import { createTestDatabase } from './database.js';

export interface LedgerDatabase {
  url: string;
  pool: Pool;
  /** Ends the pool and drops the database. */
  close(): Promise<void>;
}

export async function startLedgerDatabase(): Promise<LedgerDatabase> {
  const db = await createTestDatabase();
  const pool = createPool(db.url, 'ledger', 4);
  const close = async () => {
    await pool.end();
    await db.drop();
  };
  try {
    await migrate(pool, 'ledger', 'services/ledger');
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
  return { url: db.url, pool, close };
}

/** The ledger's consumer on `pool`, on the system clock, logging nothing. */
export const ledgerConsumer = (pool: Pool) => createLedgerConsumer({ pool, clock: systemClock, logger: createLogger('test', 'silent'), waitMs: 0 });

/** Makes the events of the test-mode project `projectId` of `merchantId`, each new and made now. */
export const envelopesOf = (merchantId: string, projectId: string) =>
  (type: string, object: Record<string, unknown>): EventEnvelope => ({
    id: newId('evt'), type, mode: 'test', merchant_id: merchantId, project_id: projectId,
    created_at: new Date().toISOString(), data: { object },
  });

/** A successful card payment and a successful refund of one, as the ledger is handed them, in that project. */
export function moneyEventsOf(merchantId: string, projectId: string) {
  const envelope = envelopesOf(merchantId, projectId);
  return {
    paid: (id: string, account: string) => envelope('payment.successful', {
      id, amount: 5000, currency: 'EUR', captured_amount: 5000, payment_method: { type: 'card' }, country: 'DE',
      route: { provider: { name: 'Demo' }, provider_account_id: account, provider_payment_id: `pp_${id}` },
      fee: { amount: 100 },
    }),
    refunded: (paymentId: string) =>
      envelope('refund.successful', { id: newId('rf'), payment_id: paymentId, amount: 1000, currency: 'EUR' }),
  };
}
