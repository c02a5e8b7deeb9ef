// Chaos: kill -9 of a gateway while keyed payments, refunds and payouts are inside the parts that
// move the money. The clients retry with the same Idempotency-Key on a second gateway after the
// dead one's claims have expired (IDEMPOTENCY_LOCK_SECONDS): no key moves money twice, and every
// retry's answer names the one resource its key created.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { assertOnceEach, chaosTag, paySettled, PAYOUT_DESTINATION, SETTLING_ENV, type Keyed, type Kind } from './helpers/chaos.js';
import { eventually } from './helpers/eventually.js';
import { keyedRequest } from './helpers/keyed-client.js';
import { natsServerMissing, startNatsServer, type NatsServer } from './helpers/nats-server.js';
import { newSplitMerchantKey, startSplitStack, type SplitStack } from './helpers/split-stack.js';
import { request } from './helpers/stack.js';

const PAYMENTS = 8;
const REFUNDS = 6;
const PAYOUTS = 8;
const REFUNDED_PAYMENT = 10_000;
/** A quarter of the payment: a second refund under the same key would still fit, so it would show. */
const REFUND = 2_500;
const PAYOUT = 1_000;
/**
 * Demo providers answer keyed payments this late, so they are still at a provider when the gateway
 * dies, with room to spare on a loaded machine; longer than the lock, so retries arrive meanwhile.
 */
const PROVIDER_LATENCY_MS = 3_000;
const ENV = {
  IDEMPOTENCY_LOCK_SECONDS: '2',
  PROVIDER_TIMEOUT_MS: '5000',
  ...SETTLING_ENV,
};

const skip = natsServerMissing();

describe('a gateway killed (kill -9) during keyed payments, refunds and payouts; retried on another', { skip }, () => {
  let nats: NatsServer;
  let split: SplitStack;
  let sql: pg.Pool;
  let apiKey: string;
  let secondGateway: string;
  const tag = chaosTag('gw');
  const requests: Keyed[] = [];

  before(async () => {
    nats = await startNatsServer();
    // Every refund and payout waits on a row lock inside its part, each holding a connection.
    const pool = (waiting: number) => ({ DATABASE_POOL_SIZE: String(waiting + 2) });
    split = await startSplitStack(nats.url, ENV, { payments: pool(REFUNDS), payouts: pool(PAYOUTS) });
    secondGateway = (await split.addGateway('gateway-2')).baseUrl;
    sql = new pg.Pool({ connectionString: split.db.url, max: 4 });
    apiKey = await newSplitMerchantKey(split);
    const refunded = await fund();
    plan(refunded);
    await killDuringRequests();
  });
  after(async () => {
    await sql?.end();
    await split?.close();
    await nats?.close();
  });

  const post = (path: string, body: unknown) => request(split.baseUrl, 'POST', path, { key: apiKey, body });

  /** Payments to refund, and settled funds well beyond twice the payouts; returns the payments' ids. */
  async function fund(): Promise<string[]> {
    const ids = await paySettled(split.baseUrl, apiKey, [50_000, 50_000, ...Array(REFUNDS).fill(REFUNDED_PAYMENT)]);
    // The first payout creates the scope's funds row, which killDuringRequests holds.
    const first = await post('/v1/payouts', { amount: 100, currency: 'EUR', destination: PAYOUT_DESTINATION });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    return ids.slice(2);
  }

  function plan(refundable: string[]): void {
    for (let i = 0; i < PAYMENTS; i++) {
      const key = `${tag}_pay_${i}`;
      requests.push({
        kind: 'payment', key, path: '/v1/payments',
        body: { amount: 3_000 + i, currency: 'EUR', payment_method: 'card', reference: key, test_scenario: 'success' },
      });
    }
    refundable.forEach((paymentId, i) => requests.push({
      kind: 'refund', key: `${tag}_rf_${i}`, path: `/v1/payments/${paymentId}/refund`, paymentId,
      body: { amount: REFUND, reason: 'chaos' },
    }));
    for (let i = 0; i < PAYOUTS; i++) {
      const key = `${tag}_po_${i}`;
      requests.push({
        kind: 'payout', key, path: '/v1/payouts', body: { amount: PAYOUT + i, currency: 'EUR', destination: PAYOUT_DESTINATION, reference: key },
      });
    }
  }

  /**
   * Every keyed request is inside a part when the first gateway dies: payments sit at a slow
   * provider; refunds and payouts wait for row locks (the refunded payments', the payout funds')
   * that a transaction of the test holds until the gateway is dead. Then the clients' retries go
   * to the second gateway.
   */
  async function killDuringRequests(): Promise<void> {
    await sql.query('UPDATE routing_risk.providers SET latency_ms = $1', [PROVIDER_LATENCY_MS]);
    let target = split.baseUrl;
    const send = (r: Keyed) => keyedRequest({
      baseUrl: () => target, method: 'POST', path: r.path, apiKey, idempotencyKey: r.key, body: r.body, totalMs: 90_000,
    }).then((o) => (r.outcome = o));
    const of = (kind: Kind) => requests.filter((r) => r.kind === kind);

    const paying = of('payment').map(send);
    await eventually('every keyed payment at its provider', async () =>
      ((await count('payments.payments', 'reference', of('payment').map((r) => r.key))) === PAYMENTS ? true : undefined));

    const locks = await sql.connect();
    try {
      await locks.query('BEGIN');
      await locks.query('SELECT 1 FROM payments.payments WHERE id = ANY($1) FOR UPDATE', [of('refund').map((r) => r.paymentId)]);
      await locks.query('SELECT 1 FROM payouts.payout_funds FOR UPDATE');
      const rest = [...of('refund'), ...of('payout')].map(send);
      await eventually('every refund and payout waiting inside its part', async () => {
        const { rows } = await sql.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`);
        return rows[0].n >= REFUNDS + PAYOUTS ? true : undefined;
      }, 15_000);
      await split.kill('gateway');
      target = secondGateway;
      await locks.query('COMMIT');
      await Promise.all([...paying, ...rest]);
    } finally {
      locks.release();
    }
  }

  async function count(table: string, column: string, values: string[]): Promise<number> {
    const { rows } = await sql.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = ANY($1)`, [values]);
    return rows[0].n;
  }

  for (const kind of ['payment', 'refund', 'payout'] as const) {
    test(`each ${kind} key created one ${kind}, and its client's final answer names it`, async (t) => {
      await assertOnceEach(t, sql, kind, requests.filter((r) => r.kind === kind));
    });
  }
});
