import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import { PayoutsService } from '../proto/gen/svc/payouts/v1/payouts_pb.js';
import { createLedgerConsumer } from '../services/ledger/index.js';
import type { Subscription } from '../services/platform/bus/index.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { internalSubjects, isInternalType } from '../services/platform/internal-events.js';
import { createLogger } from '../services/platform/logger.js';
import { migrate } from '../services/platform/migrate.js';
import { createPeerTransport } from '../services/platform/rpc.js';
import { type EventEnvelope } from '../services/contract/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { eventually } from './helpers/eventually.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { offsetClock, request, startTestStack, type TestStack } from './helpers/stack.js';

// The ledger records from internal events. A second ledger (its own database) consumes
// the real stack's stream through real NATS on the internal subjects only, so it never sees a
// public event; what it records for a payment, a refund and a payout must be what the stack's
// own ledger recorded, field for field.

const clock = offsetClock();
const FIELDS = [
  'type', 'status', 'entity_type', 'entity_id', 'payment_id', 'amount', 'currency', 'fee_amount', 'net_amount',
  'provider_name', 'provider_account_id', 'provider_reference', 'payment_method', 'country', 'processing_time_ms',
  'failure_code', 'occurred_at',
];

// NATS_URL's JetStream, or on a laptop a nats-server of this file's own.
const { url: natsUrl, skip: withoutNats } = await jetStreamForFile();

describe('the ledger records a payment, a refund and a payout from internal events only', { skip: withoutNats }, () => {
  let stack: TestStack;
  let db: TestDatabase;
  let pool: Pool;
  let subscription: Subscription | undefined;
  const handed: EventEnvelope[] = [];

  before(async () => {
    stack = await startTestStack({ clock, natsUrl });
    db = await createTestDatabase();
    pool = createPool(db.url, 'ledger', 4);
    await migrate(pool, 'ledger', 'services/ledger');
  });
  after(async () => {
    await subscription?.stop();
    await pool?.end();
    await db?.drop();
    await stack?.close();
  });

  const rows = async (query: (sql: string, params: unknown[]) => Promise<{ rows: any[] }>, projectId: string) =>
    (await query(
      // As text: the two pools parse bigint differently.
      `SELECT ${FIELDS.map((f) => (f.endsWith('amount') ? `${f}::text` : f)).join(', ')}, source_event_id FROM ledger.transactions WHERE project_id = $1 ORDER BY entity_type, type`,
      [projectId],
    )).rows;

  test('a second ledger on the internal subjects records what the stack\'s ledger recorded', async () => {
    const nats = stack.testBus.nats;
    assert.ok(nats, 'runs on real NATS JetStream');
    const merchant = await stack.newMerchantKey('test');
    const key = merchant.secret;
    const post = (path: string, body: unknown) => request(stack.baseUrl, 'POST', path, { key, body });

    const payment = await post('/v1/payments', { amount: 5000, currency: 'EUR', payment_method: 'card', country: 'DE' });
    assert.equal(payment.body.status, 'successful', JSON.stringify(payment.body));
    const refund = await post(`/v1/payments/${payment.body.id}/refund`, { amount: 1200 });
    assert.equal(refund.body.status, 'successful', JSON.stringify(refund.body));
    // A test-mode payout draws on what the ledger has recorded as processed.
    await eventually('the stack\'s ledger to record the payment and the refund', async () =>
      ((await rows(stack.query, merchant.projectId)).length === 2 ? true : undefined));
    const payout = await post('/v1/payouts', {
      amount: 1000, currency: 'EUR',
      destination: { type: 'bank_account', token: 'ben_demo_1a2b3c', display: 'DE89 •••• 3000', holder_name: 'Ada Lovelace', country: 'de' },
    });
    assert.equal(payout.status, 201, JSON.stringify(payout.body));
    const payoutsRpc = createClient(PayoutsService, createPeerTransport(stack.serviceUrls.payouts, stack.internalToken));
    clock.offsetMs += 10 * 60_000;
    await payoutsRpc.dispatchPayouts({});
    await eventually('the payout sent', async () => {
      const res = await request(stack.baseUrl, 'GET', `/v1/payouts/${payout.body.id}`, { key });
      return res.body.status === 'successful' ? true : undefined;
    });
    await eventually('the stack\'s ledger to record all three', async () =>
      ((await rows(stack.query, merchant.projectId)).length === 3 ? true : undefined));

    const handle = createLedgerConsumer({ pool, clock, logger: createLogger('test', 'silent'), waitMs: 0 });
    subscription = await stack.testBus.bus.consume('ledger-internal-only', [internalSubjects(nats.subjectPrefix)], async (event) => {
      handed.push(event);
      await handle(event);
    }, { concurrency: 16 });
    const own = (sql: string, params: unknown[]) => pool.query(sql, params);
    await eventually('the internal-only ledger to record all three', async () =>
      ((await rows(own, merchant.projectId)).length === 3 ? true : undefined));

    assert.ok(handed.length > 0 && handed.every((e) => isInternalType(e.type)), 'the second ledger was handed internal events only');
    const strip = (rs: any[]) => rs.map(({ source_event_id: _, ...r }) => r);
    const internal = await rows(own, merchant.projectId);
    assert.deepEqual(strip(internal), strip(await rows(stack.query, merchant.projectId)));
    assert.deepEqual(internal.map((r) => [r.type, r.amount, r.fee_amount]), [
      ['payment', String(5000), String(payment.body.fee.amount)], ['payout', String(-1000), String(payout.body.fee.amount)],
      ['refund', String(-1200), '0'],
    ]);
    // Each row names the internal event it was recorded from.
    const sources = await pool.query(
      `SELECT c.type FROM ledger.transactions t JOIN ledger.consumed_events c ON c.event_id = t.source_event_id
       WHERE t.project_id = $1 ORDER BY t.entity_type`, [merchant.projectId],
    );
    assert.deepEqual(sources.rows.map((r) => r.type), ['internal.payment.decided', 'internal.payout.settled', 'internal.refund.settled']);

    // Its balance agrees with the stack's, to the unit.
    const balances = async (query: typeof own) => (await query(
      `SELECT account, sum(amount)::text AS total FROM ledger.journal_lines WHERE project_id = $1 GROUP BY account ORDER BY account`,
      [merchant.projectId],
    )).rows;
    assert.deepEqual(await balances(own), await balances(stack.query));
  });
});
