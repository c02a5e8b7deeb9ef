// Chaos: kill -9 of the payments process in the middle of a burst of keyed payments, then a
// restart. Clients retry with the same Idempotency-Key as the contract tells them to. Whatever
// the crash cut short, each key ends with exactly one payment, each client's final answer names
// it, the ledger records one movement per successful payment, and every event reaches webhooks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { chaosTag, everyEventDelivered } from './helpers/chaos.js';
import { eventually } from './helpers/eventually.js';
import { keyedRequest, type KeyedOutcome } from './helpers/keyed-client.js';
import { natsServerMissing, startNatsServer, type NatsServer } from './helpers/nats-server.js';
import { newSplitMerchantKey, startSplitStack, type SplitStack } from './helpers/split-stack.js';

const PAYMENTS = 150;
const CLIENTS = 20;
/** The kill lands once this many payments of the burst are stored: the burst is well under way. */
const KILL_AFTER_STORED = 40;
/** Every demo provider answers after this long, so many payments are at a provider when payments dies. */
const PROVIDER_LATENCY_MS = 100;
const ENV = {
  // Reconciliation settles the attempts the dead process left open after abandonedAfterMs (3 × 500 + 5000 ms).
  RECONCILIATION_SWEEP_MS: '200',
  PROVIDER_TIMEOUT_MS: '500',
  // The retries of twenty clients are not what this test is about.
  RATE_LIMIT_PER_MINUTE: '1000000',
};

/** Mostly plain successes, with failovers after a timeout or a soft decline among them. */
const scenarioOf = (i: number) => (i % 15 === 7 ? 'timeout' : i % 15 === 11 ? 'failover' : 'success');

const skip = natsServerMissing();

describe('payments killed (kill -9) during a keyed burst, then restarted', { skip }, () => {
  let nats: NatsServer;
  let split: SplitStack;
  let sql: pg.Pool;
  const prefix = `${chaosTag('pay')}_`;
  const keys = Array.from({ length: PAYMENTS }, (_, i) => `${prefix}${i}`);
  const outcomes = new Map<string, KeyedOutcome>();
  let inFlightAtKill = 0;

  before(async () => {
    nats = await startNatsServer();
    split = await startSplitStack(nats.url, ENV);
    sql = new pg.Pool({ connectionString: split.db.url, max: 3 });
    const apiKey = await newSplitMerchantKey(split);
    await sql.query('UPDATE routing_risk.providers SET latency_ms = $1', [PROVIDER_LATENCY_MS]);
    await burstWithKill(apiKey);
  });
  after(async () => {
    await sql?.end();
    await split?.close();
    await nats?.close();
  });

  async function burstWithKill(apiKey: string): Promise<void> {
    let next = 0;
    let done = 0;
    const client = async () => {
      while (next < PAYMENTS) {
        const i = next++;
        outcomes.set(keys[i], await keyedRequest({
          baseUrl: () => split.baseUrl, method: 'POST', path: '/v1/payments', apiKey, idempotencyKey: keys[i],
          body: { amount: 1000 + i, currency: 'EUR', payment_method: 'card', reference: keys[i], test_scenario: scenarioOf(i) },
          totalMs: 90_000,
        }));
        done++;
      }
    };
    const killer = async () => {
      await eventually('the burst under way', async () => ((await storedCount()) >= KILL_AFTER_STORED ? true : undefined));
      inFlightAtKill = next - done;
      await split.restart('payments');
    };
    await Promise.all([killer(), ...Array.from({ length: CLIENTS }, client)]);
  }

  async function storedCount(): Promise<number> {
    const { rows } = await sql.query('SELECT count(*)::int AS n FROM payments.payments WHERE reference LIKE $1', [`${prefix}%`]);
    return rows[0].n;
  }

  /** Per key: the payments stored for it, with their statuses. */
  async function paymentsByKey(): Promise<Map<string, Array<{ id: string; status: string }>>> {
    const { rows } = await sql.query(
      'SELECT reference, id, status FROM payments.payments WHERE reference LIKE $1 ORDER BY id', [`${prefix}%`]);
    const byKey = new Map<string, Array<{ id: string; status: string }>>(keys.map((k) => [k, []]));
    for (const r of rows) byKey.get(r.reference)!.push({ id: r.id, status: r.status });
    return byKey;
  }

  test('every key has exactly one payment, and every client ended with a 201 naming it', async (t) => {
    const byKey = await paymentsByKey();
    const doubled = keys.filter((k) => byKey.get(k)!.length > 1);
    const missing = keys.filter((k) => byKey.get(k)!.length === 0);
    const notCreated = keys.filter((k) => outcomes.get(k)!.status !== 201);
    const wrongId = keys.filter((k) => outcomes.get(k)!.status === 201 && byKey.get(k)!.length === 1
      && outcomes.get(k)!.body.id !== byKey.get(k)![0].id);
    const retried = keys.filter((k) => outcomes.get(k)!.tries > 1).length;
    t.diagnostic(`${inFlightAtKill} requests in flight at the kill; ${retried} keys retried; `
      + `${doubled.length} keys with two or more payments; ${missing.length} with none; `
      + `${notCreated.length} clients without a 201; ${wrongId.length} answered another payment than the stored one`);
    for (const k of doubled.slice(0, 5)) t.diagnostic(`${k}: ${JSON.stringify(byKey.get(k))} tries ${outcomes.get(k)!.history.join(' → ')}`);

    assert.deepEqual(doubled, [], 'keys with more than one payment');
    assert.deepEqual(missing, [], 'keys with no payment');
    for (const k of notCreated) assert.fail(`${k} ended with ${outcomes.get(k)!.status}: ${outcomes.get(k)!.history.join(' → ')}`);
    assert.deepEqual(wrongId, [], 'clients answered with another payment than the one stored for their key');
  });

  test('once reconciliation settles, the ledger has exactly one movement per successful payment', async (t) => {
    await eventually('every payment of the burst final', async () => {
      const { rows } = await sql.query(
        `SELECT count(*)::int AS n FROM payments.payments WHERE reference LIKE $1 AND status NOT IN ('successful', 'failed')`,
        [`${prefix}%`]);
      return rows[0].n === 0 ? true : undefined;
    }, 60_000);
    // Failed payments are recorded too (for monitoring): every final payment has its movement.
    const movements = () => sql.query(
      `SELECT p.reference, p.id, p.status,
              count(t.id) FILTER (WHERE t.status = 'successful')::int AS successful,
              count(t.id)::int AS recorded
       FROM payments.payments p
       LEFT JOIN ledger.transactions t ON t.type = 'payment' AND t.entity_type = 'payment' AND t.entity_id = p.id
       WHERE p.reference LIKE $1 GROUP BY p.reference, p.id, p.status`, [`${prefix}%`]);
    const rows = await eventually('every payment in the ledger', async () => {
      const { rows } = await movements();
      return rows.every((r) => r.recorded >= 1) ? rows : undefined;
    }, 60_000);

    const successfulByKey = new Map<string, number>();
    for (const r of rows) successfulByKey.set(r.reference, (successfulByKey.get(r.reference) ?? 0) + r.successful);
    const chargedTwice = [...successfulByKey].filter(([, n]) => n > 1).map(([k]) => k);
    const failed = rows.filter((r) => r.status === 'failed').length;
    t.diagnostic(`${rows.length} payments (${failed} failed); ${chargedTwice.length} keys with two or more successful movements in the ledger`);

    for (const r of rows) {
      assert.equal(r.successful, r.status === 'successful' ? 1 : 0, `${r.id} (${r.status}): successful movements`);
      assert.equal(r.recorded, 1, `${r.id}: movements recorded`);
    }
    assert.deepEqual(chargedTwice, [], 'keys charged more than once');
  });

  test('every event of the payments outbox was published and reached webhooks (money events the ledger too)', async (t) => {
    const { payments } = await everyEventDelivered(sql, ['payments']);
    t.diagnostic(`${payments.events} events, all in webhooks (and the money events in the ledger)`);
    // Each payment of the burst announced its creation and its outcome.
    const { rows: [counts] } = await sql.query(
      `SELECT count(DISTINCT p.id)::int AS payments,
              count(DISTINCT e.data_id) FILTER (WHERE e.type = 'payment.created')::int AS created
       FROM payments.payments p
       LEFT JOIN (SELECT type, payload->'data'->'object'->>'id' AS data_id FROM payments.outbox) e ON e.data_id = p.id
       WHERE p.reference LIKE $1`, [`${prefix}%`]);
    assert.equal(counts.created, counts.payments, 'every payment has its payment.created event');
  });
});
