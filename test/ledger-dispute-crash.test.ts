// The ledger process killed (kill -9) while it books a backlog of dispute movements: a restarted
// process books the rest from the durable consumer (JetStream redelivers what was not
// acknowledged), and every movement id has exactly one transaction, however often its event was
// delivered or published. Real Postgres, real NATS JetStream, the ledger part as its own process.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { EventEnvelope } from '../services/contract/index.js';
import { JetStreamBus } from '../services/platform/bus/index.js';
import { newId } from '../services/platform/ids.js';
import { newInternalToken } from '../services/platform/internal-callers.js';
import { createLogger } from '../services/platform/logger.js';
import { deleteStream } from './helpers/bus.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { fundsMoved, paymentDecided, publishAll, type MovedFunds, type Scope } from './helpers/dispute-movements.js';
import { eventually } from './helpers/eventually.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { freePort, killPart, spawnPart, waitForHealth, type PartProcess } from './helpers/processes.js';

const { url: natsUrl, skip: withoutNats } = await jetStreamForFile();
const DISPUTES = 300;

describe('the ledger killed mid-batch of dispute movements', { skip: withoutNats }, () => {
  let db: TestDatabase;
  let sql: pg.Pool;
  let bus: JetStreamBus;
  let ledger: PartProcess | undefined;
  const suffix = randomBytes(5).toString('hex');
  const nats = { url: natsUrl!, stream: `SVC_DISPUTE_CRASH_${suffix}`, subjectPrefix: `svcdisputecrash.${suffix}` };
  let env: Record<string, string>;
  let grpcUrl: string;

  before(async () => {
    db = await createTestDatabase();
    sql = new pg.Pool({ connectionString: db.url, max: 2 });
    bus = await JetStreamBus.connect({ ...nats, logger: createLogger('test-bus', 'silent'), name: 'dispute-crash' });
    grpcUrl = `http://127.0.0.1:${await freePort()}`;
    env = {
      DATABASE_URL: db.url, NATS_URL: nats.url, NATS_STREAM: nats.stream, NATS_SUBJECT_PREFIX: nats.subjectPrefix,
      HOST: '127.0.0.1', GRPC_PORT: new URL(grpcUrl).port, LOG_LEVEL: 'warn', INTERNAL_TOKEN: newInternalToken(),
      DATABASE_POOL_SIZE: '4',
    };
  });
  after(async () => {
    await ledger?.stop();
    await bus?.close();
    await sql?.end();
    await deleteStream(natsUrl!, nats.stream).catch(() => undefined);
    await db?.drop();
  });

  const startLedger = async () => {
    ledger = spawnPart('ledger', 'services/ledger/main.js', env);
    await waitForHealth(ledger, grpcUrl);
  };

  const booked = async (scope: Scope) => (await sql.query(
    `SELECT count(*)::int AS n FROM ledger.transactions WHERE project_id = $1 AND entity_type = 'dispute'`, [scope.projectId],
  )).rows[0].n as number;

  test('every movement id has one transaction after the restart', async (t) => {
    const scope: Scope = { mode: 'test', merchantId: newId('mer'), projectId: newId('prj') };
    const movements: MovedFunds[] = [];
    const events: EventEnvelope[] = [];
    for (let i = 0; i < DISPUTES; i++) {
      const paymentId = newId('pay');
      const dispute = { disputeId: `dp_crash_${i}`, paymentId, providerDisputeId: `du_crash_${i}` };
      const three: MovedFunds[] = [
        { ...dispute, id: `dpm_crash_${i}_a`, kind: 'withdrawal', amount: 1000 + i, fee: 150 },
        { ...dispute, id: `dpm_crash_${i}_b`, kind: 'reinstatement', amount: 1000 + i },
        { ...dispute, id: `dpm_crash_${i}_c`, kind: 'withdrawal', amount: 1000 + i },
      ];
      movements.push(...three);
      // Every third dispute's movements come before its payment; each movement is published twice.
      const moved = [...three, ...three].map((m) => fundsMoved(scope, m));
      events.push(...(i % 3 === 0 ? [...moved, paymentDecided(scope, paymentId, 5000)] : [paymentDecided(scope, paymentId, 5000), ...moved]));
    }
    // The backlog is in the stream before the ledger starts, so the kill falls in the middle of it.
    await publishAll(bus, nats.subjectPrefix, events);
    await startLedger();
    const atKill = await eventually('the ledger booking the backlog', async () => {
      const n = await booked(scope);
      return n > 0 ? n : undefined;
    }, 60_000);
    await killPart(ledger!);
    t.diagnostic(`killed with ${atKill} of ${movements.length} movements booked`);
    assert.ok(atKill < movements.length, `killed mid-way (${atKill} of ${movements.length} booked)`);

    await startLedger();
    await eventually('every movement booked after the restart', async () =>
      ((await booked(scope)) >= movements.length ? true : undefined), 120_000);
    // A moment for anything redelivered late to find its movement taken.
    await new Promise((r) => setTimeout(r, 1_500));
    const { rows } = await sql.query(
      `SELECT movement_id, count(*)::int AS n, min(type) AS type, sum(amount)::int AS amount, sum(fee_amount)::int AS fee
       FROM ledger.transactions WHERE project_id = $1 AND entity_type = 'dispute' GROUP BY movement_id`, [scope.projectId],
    );
    assert.equal(rows.length, movements.length, 'one row per movement id');
    assert.ok(rows.every((r) => r.n === 1), 'no movement booked twice');
    const expected = new Map(movements.map((m) => [m.id!, [m.kind === 'withdrawal' ? 'dispute' : 'dispute_reversal',
      m.kind === 'withdrawal' ? -m.amount : m.amount, m.fee ?? 0]]));
    for (const r of rows) assert.deepEqual([r.type, r.amount, r.fee], expected.get(r.movement_id), r.movement_id);
    // The journal agrees: what the providers owe is the payments' nets less each dispute's A + F.
    const [{ owed }] = (await sql.query(
      `SELECT sum(amount)::int AS owed FROM ledger.journal_lines WHERE project_id = $1 AND account = 'provider_receivable'`,
      [scope.projectId],
    )).rows;
    const disputed = movements.reduce((t, m) => t + (m.kind === 'withdrawal' ? -(m.amount + (m.fee ?? 0)) : m.amount), 0);
    assert.equal(owed, DISPUTES * (5000 - 100) + disputed);
  });
});
