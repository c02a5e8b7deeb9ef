import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { consumeAttemptOutcomes } from '../services/routing-risk/outcome-consumer.js';
import type { Subscription } from '../services/platform/bus/index.js';
import { systemClock } from '../services/platform/clock.js';
import { loadConfig } from '../services/platform/config.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { newId } from '../services/platform/ids.js';
import { internalEnvelope } from '../services/platform/internal-events.js';
import { createLogger } from '../services/platform/logger.js';
import { migrate } from '../services/platform/migrate.js';
import type { ServiceDeps } from '../services/platform/part.js';
import { eventSubject, type EventEnvelope } from '../services/contract/index.js';
import { createTestBus, type TestBus } from './helpers/bus.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { eventually } from './helpers/eventually.js';

// Routing-risk records the attempt.settled events handed to it together in one statement per
// batch (services/routing-risk/outcome-store.ts), on real JetStream: minutes counted as one by one
// for a scope with a learning rule and not at all for one without, a repeat counted once, and an
// event Postgres refuses redelivered alone without holding back the rest.

let db: TestDatabase;
let pool: Pool;
// Real JetStream: CI's, or one of the file's own without NATS_URL.
const { url: natsUrl } = await jetStreamForFile();

before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 'routing_risk', 4);
  await migrate(pool, 'routing_risk', 'services/routing-risk');
  await pool.query(
    `INSERT INTO routing_rules (id, merchant_id, project_id, mode, name, priority, providers, created_at, experiment_since, strategy)
     VALUES ('rtr_batch', $1, $2, $3, 'learns', 1, '{demo}', now(), now(), '{"type":"success_rate"}')`,
    [payment.merchantId, payment.projectId, payment.mode]);
});
after(async () => {
  await pool?.end();
  await db?.drop();
});

const payment = { mode: 'test', merchantId: 'mer_batch', projectId: 'prj_batch' };
// A project whose rules never learn (it has none).
const quiet = { ...payment, projectId: 'prj_quiet' };

function settled(
  account: string, status: 'succeeded' | 'failed', extra: Record<string, unknown> = {}, scope = payment,
): EventEnvelope {
  const at = new Date();
  const paymentId = newId('pay');
  // As it travels (wire JSON), so `extra` may make it one the consumer cannot read.
  const object = {
    version: 1, id: newId('att'), payment_id: paymentId, attempt_number: 1, provider_id: 'prv_a', provider_code: 'demo',
    provider_account_id: account, payment_method: 'card', currency: 'EUR', country: 'DE', card_network: null,
    bin_range: null, status, outcome: status === 'failed' ? 'technical_error' : 'success',
    failure_category: status === 'failed' ? 'technical' : null, failure_code: null, latency_ms: 10, amount: 1000,
    settled_at: at.toISOString(), ...extra,
  };
  return internalEnvelope(newId('evt', at), scope, at, { type: 'internal.attempt.settled', object });
}

async function withConsumer<T>(testBus: TestBus, events: EventEnvelope[], run: (counted: { statements: number }) => Promise<T>) {
  const prefix = testBus.nats!.subjectPrefix;
  // Published before the consumer starts: it is handed them together, as after a burst. A second
  // copy of an event gets a message id of its own, so the broker delivers it too.
  const seen = new Set<string>();
  await Promise.all(events.map((e) => {
    const msgId = seen.has(e.id) ? `${e.id}.again` : e.id;
    seen.add(e.id);
    return testBus.bus.publish({ subject: eventSubject(prefix, e.type), msgId, data: Buffer.from(JSON.stringify(e)) });
  }));
  const counted = { statements: 0 };
  const counting = { query: (...args: unknown[]) => { counted.statements++; return (pool.query as Function)(...args); } } as unknown as Pool;
  const deps = {
    pool: counting, bus: testBus.bus, clock: systemClock, logger: createLogger('test', 'silent'),
    config: loadConfig({ NATS_SUBJECT_PREFIX: prefix }),
  } as ServiceDeps;
  let subscription: Subscription | undefined;
  try {
    subscription = await consumeAttemptOutcomes(deps);
    return await run(counted);
  } finally {
    await subscription?.stop();
  }
}

/** An account's minutes at the coarsest level (method and currency), where every outcome counts once. */
const countsOf = async (account: string) => (await pool.query(
  `SELECT project_id, sum(succeeded)::int AS succeeded, sum(soft_declined)::int AS soft, sum(hard_declined)::int AS hard,
     sum(technical)::int AS technical
   FROM outcome_minutes WHERE provider_account_id = $1 AND country = '*' AND card_network = '*' GROUP BY 1`, [account])).rows;

const rowsOf = async (account: string) =>
  (await pool.query('SELECT count(*)::int AS n FROM attempt_outcomes WHERE provider_account_id = $1', [account])).rows[0].n;

test('a burst of attempt.settled events: a few statements, the minutes as one by one, a repeat counted once', async () => {
  const testBus = await createTestBus(natsUrl);
  assert.ok(testBus.nats, 'runs on real NATS JetStream (CI sets NATS_URL)');
  try {
    const events = [
      ...Array.from({ length: 30 }, () => settled('pac_burst', 'succeeded')),
      ...Array.from({ length: 10 }, () => settled('pac_burst', 'failed')),
      ...Array.from({ length: 5 }, () => settled('pac_other', 'succeeded')),
      ...Array.from({ length: 5 }, () => settled('pac_other', 'failed', {}, quiet)),
    ];
    // The same attempt announced again under another event id (a re-published change), and the
    // same event delivered again, count nothing.
    const again = { ...events[0]!, id: newId('evt') };
    await withConsumer(testBus, [...events, again, events[1]!], async (counted) => {
      await eventually('50 outcomes recorded', async () =>
        ((await rowsOf('pac_burst')) + (await rowsOf('pac_other')) === 50 ? true : undefined));
      await eventually('the consumer caught up', async () =>
        ((await testBus.bus.pending!('routing-risk')) === 0 ? true : undefined));
      assert.ok(counted.statements <= 12, `${counted.statements} statements for 52 events`);
    });
    assert.deepEqual(await countsOf('pac_burst'), [{ project_id: 'prj_batch', succeeded: 30, soft: 0, hard: 0, technical: 10 }]);
    // The quiet project's outcomes are claimed (their rows are there) but count into no minute.
    assert.deepEqual(await countsOf('pac_other'), [{ project_id: 'prj_batch', succeeded: 5, soft: 0, hard: 0, technical: 0 }]);
  } finally {
    await testBus.close();
  }
});

test('an event Postgres refuses fails alone: the rest of its batch is recorded, it is delivered again', async () => {
  const testBus = await createTestBus(natsUrl);
  try {
    const good = Array.from({ length: 8 }, () => settled('pac_mixed', 'succeeded'));
    const refused = settled('pac_mixed', 'failed', { settled_at: 'not a time' });
    await withConsumer(testBus, [...good.slice(0, 4), refused, ...good.slice(4)], async () => {
      await eventually('the eight good outcomes recorded', async () => ((await rowsOf('pac_mixed')) === 8 ? true : undefined));
      // Still waiting to be recorded: the broker holds it for redelivery, it was not dropped.
      await new Promise((r) => setTimeout(r, 300));
      assert.ok((await testBus.bus.pending!('routing-risk')) >= 1, 'the refused event is still pending');
    });
    assert.deepEqual(await countsOf('pac_mixed'), [{ project_id: 'prj_batch', succeeded: 8, soft: 0, hard: 0, technical: 0 }]);
  } finally {
    await testBus.close();
  }
});
