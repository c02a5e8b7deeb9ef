// Routing-risk answers a plan and writes its decisions after, in its next batch. Its process is
// killed (kill -9) between the answer and that write (ROUTING_DECISION_WRITE_TEST_DELAY_MS holds the
// batch): the payment still succeeded once, under its key, with one movement in the ledger and the
// decision's summary on the payment itself; only the decisions' rows are missing. Six parts as
// processes over real gRPC, Postgres and NATS JetStream.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { eventually } from './helpers/eventually.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { newSplitMerchantKey, startSplitStack, type SplitStack } from './helpers/split-stack.js';
import { request } from './helpers/stack.js';

const { url: natsUrl, skip } = await jetStreamForFile();
/** Far longer than the payment takes after its plan: the kill lands before the batch is written. */
const HELD_MS = 60_000;

describe('routing-risk killed after answering a plan and before writing its decisions', { skip }, () => {
  let split: SplitStack;
  let sql: pg.Pool;
  let apiKey: string;

  before(async () => {
    split = await startSplitStack(natsUrl!, {}, { 'routing-risk': { ROUTING_DECISION_WRITE_TEST_DELAY_MS: String(HELD_MS) } });
    sql = new pg.Pool({ connectionString: split.db.url, max: 2 });
    apiKey = await newSplitMerchantKey(split);
  });
  after(async () => {
    await sql?.end();
    await split?.close();
  });

  const pay = (key: string) => request(split.baseUrl, 'POST', '/v1/payments', {
    key: apiKey, headers: { 'idempotency-key': key }, body: { amount: 4200, currency: 'EUR', payment_method: 'card', reference: key },
  });
  const decisionRows = async (paymentId: string) => (await sql.query(
    `SELECT (SELECT count(*) FROM routing_risk.routing_decisions WHERE payment_id = $1)::int AS routing,
            (SELECT count(*) FROM routing_risk.risk_decisions WHERE payment_id = $1)::int AS risk`, [paymentId])).rows[0];
  const movements = async (paymentId: string) => (await sql.query(
    `SELECT count(*)::int AS n FROM ledger.transactions WHERE type = 'payment' AND entity_type = 'payment' AND entity_id = $1`,
    [paymentId])).rows[0].n as number;

  test('the payment succeeded once with one ledger movement; only the decision rows are lost', async () => {
    const key = `decision-crash-${randomUUID()}`;
    const created = await pay(key);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.status, 'successful');
    const routingRisk = split.parts.find((p) => p.name === 'routing-risk')!;
    routingRisk.child.kill('SIGKILL');
    await routingRisk.stop();

    const payment = created.body;
    // The decision's summary lives on the payment: which decision routed it, by which rule.
    assert.match(payment.route.routing_decision_id, /^rtd_/);
    await eventually('the ledger recorded the payment', async () => ((await movements(payment.id)) >= 1 ? true : undefined), 30_000);

    // Routing-risk back: the held batch died with the process, nothing writes it later.
    await split.restart('routing-risk', { ROUTING_DECISION_WRITE_TEST_DELAY_MS: '0' });
    const retried = await pay(key);
    assert.equal(retried.status, 201);
    assert.equal(retried.body.id, payment.id, 'the key answers the payment it created');
    const next = await pay(`decision-crash-${randomUUID()}`);
    assert.equal(next.body.status, 'successful');
    await eventually('the next payment\'s decisions written after its answer', async () => {
      const rows = await decisionRows(next.body.id);
      return rows.routing === 1 && rows.risk === 1 ? true : undefined;
    }, 15_000);
    await eventually('the next payment in the ledger', async () => ((await movements(next.body.id)) === 1 ? true : undefined), 30_000);

    const { rows } = await sql.query('SELECT id, status FROM payments.payments WHERE reference = $1', [key]);
    assert.deepEqual(rows, [{ id: payment.id, status: 'successful' }], 'one payment under the key, successful');
    assert.equal(await movements(payment.id), 1, 'one movement in the ledger');
    assert.deepEqual(await decisionRows(payment.id), { routing: 0, risk: 0 }, 'only the decisions\' rows are missing');
  });
});
