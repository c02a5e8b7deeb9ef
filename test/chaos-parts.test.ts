// Chaos: kill -9 in turn of the ledger, webhooks, the NATS server, payouts and routing-risk, each
// during a burst of keyed payments, refunds of earlier payments and payouts, then a restart. The
// clients retry with the same Idempotency-Key as the contract tells them to. Whatever each crash
// cut short: every key moved money once and its client's final answer names what it created, every
// payout ends final with its funds committed once, the ledger holds one movement per final payment,
// refund and payout, and every event the parts wrote (acknowledged by the bus or not) reaches the
// ledger and webhooks. (chaos-payments and chaos-gateway kill payments and a gateway.)
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import {
  assertOnceEach, chaosTag, everyEventDelivered, outboxGaps, paySettled, PAYOUT_DESTINATION, SETTLING_ENV, type Keyed, type Kind,
} from './helpers/chaos.js';
import { eventually } from './helpers/eventually.js';
import { keyedRequest } from './helpers/keyed-client.js';
import { natsServerMissing, startNatsServer, type NatsServer } from './helpers/nats-server.js';
import { newSplitMerchantKey, startSplitStack, type SplitStack } from './helpers/split-stack.js';

/** Keyed requests of each kind in one burst. */
const PER_BURST: Record<Kind, number> = { payment: 20, refund: 8, payout: 8 };
const CLIENTS = 10;
const REFUNDED_PAYMENT = 10_000;
/** A quarter of the payment: a second refund under the same key would still fit, so it would show. */
const REFUND = 2_500;
/** Payouts sit at their provider this long, so killing payouts lands mid-dispatch. */
const PAYOUT_LATENCY_MS = 500;
/** Payouts whose process died mid-call are sent again after abandonedAfterMs (3 × 1000 + 5000 ms). */
const PAYOUT_TIMEOUT_MS = 1_000;
/** How long the NATS server stays dead: the relays and consumers see it gone, not a blip. */
const NATS_DOWN_MS = 1_000;
const ENV = {
  ...SETTLING_ENV,
  PROVIDER_TIMEOUT_MS: '500',
  RECONCILIATION_SWEEP_MS: '200',
  // Payouts go to their provider at the next sweep: no cancellation window to wait out.
  PAYOUT_HOLD_MS: '0',
  PAYOUT_SWEEP_MS: '100',
};
const PAYOUTS_ENV = {
  PROVIDER_TIMEOUT_MS: String(PAYOUT_TIMEOUT_MS),
  DEMO_PAYOUT_LATENCY_MS: String(PAYOUT_LATENCY_MS),
  // A dispatch records every answered payout at once, beside the creations of the burst.
  DATABASE_POOL_SIZE: '6',
};

/** Mostly successes, with failovers and declines among them: failed movements are recorded too. */
const paymentScenario = (i: number) => (i % 10 === 3 ? 'hard_decline' : i % 10 === 7 ? 'failover' : 'success');
/** A declined payout releases its funds: the committed sum must leave it out. */
const payoutScenario = (i: number) => (i % 4 === 3 ? 'hard_decline' : 'success');

const skip = natsServerMissing();

interface Burst {
  name: string;
  /** True once the burst is far enough along for the crash to land in the middle of it. */
  underWay(answered: number, keys: string[]): Promise<boolean>;
  crash(): Promise<void>;
  /** Sent first in the burst, so that its work is well under way while the rest is in flight. */
  first?: Kind;
  /** Filled in at the crash: keyed requests in flight, this burst's payouts at their provider. */
  inFlight?: number;
  atProvider?: number;
  /** What else was going on, for the diagnostics. */
  atCrash?: string;
}

describe('the ledger, webhooks, the NATS server, payouts and routing-risk each killed (kill -9) during keyed bursts', { skip }, () => {
  let nats: NatsServer;
  let split: SplitStack;
  let sql: pg.Pool;
  let apiKey: string;
  const tag = chaosTag('parts');
  const requests: Array<Keyed & { burst: string }> = [];
  let setupMs = 0;

  const restartPart = (name: string) => async () => {
    await split.restart(name);
  };
  /** A third of a burst's requests answered: the rest are in flight or still to come. */
  const third = () => Math.ceil(Object.values(PER_BURST).reduce((a, b) => a + b) / 3);
  // The consumers die first and the NATS server next: JetStream hands what a dead consumer (or a
  // dead server) held to a consumer again only after ack_wait (30 s), which then overlaps the later
  // bursts. Each consumer dies while it is applying its burst's events.
  const bursts: Burst[] = [
    { name: 'ledger', underWay: async (n, keys) => n >= third() && (await inLedger(keys)) > 0, crash: restartPart('ledger') },
    { name: 'webhooks', underWay: async (n, keys) => n >= third() && (await inWebhooks(keys)) > 0, crash: restartPart('webhooks') },
    {
      name: 'nats', underWay: async (n) => n >= third(),
      async crash() {
        await nats.kill();
        await sleep(NATS_DOWN_MS);
        await nats.restart();
      },
    },
    // While payouts of this burst are claimed and at their (slow) provider.
    { name: 'payouts', first: 'payout', underWay: async (_, keys) => (await pendingPayouts(keys)) > 0, crash: restartPart('payouts') },
    { name: 'routing-risk', underWay: async (n) => n >= third(), crash: restartPart('routing-risk') },
  ];

  before(async () => {
    const started = Date.now();
    nats = await startNatsServer();
    split = await startSplitStack(nats.url, ENV, { payouts: PAYOUTS_ENV }, { payouts: 'test/helpers/slow-payouts-part.js' });
    sql = new pg.Pool({ connectionString: split.db.url, max: 3 });
    apiKey = await newSplitMerchantKey(split);
    // Settled funds far beyond every payout, and one payment per refund key to refund.
    const refundable = await paySettled(split.baseUrl, apiKey, Array(bursts.length * PER_BURST.refund).fill(REFUNDED_PAYMENT));
    await sql.query('UPDATE routing_risk.providers SET latency_ms = 50');
    bursts.forEach((b, i) => plan(b, refundable.slice(i * PER_BURST.refund, (i + 1) * PER_BURST.refund)));
    setupMs = Date.now() - started;
    for (const b of bursts) await burstWithCrash(b);
  });
  after(async () => {
    await sql?.end();
    await split?.close();
    await nats?.close();
  });

  /** The keyed requests of one burst, the kinds mixed so that each is in flight throughout it (but for its first). */
  function plan({ name: burst, first }: Burst, refundable: string[]): void {
    const mine: Array<Keyed & { burst: string; order: number }> = [];
    const add = (kind: Kind, i: number, r: Omit<Keyed, 'kind' | 'key'> & { key: string }) =>
      mine.push({ kind, burst, order: (i + 0.5) / PER_BURST[kind] - (kind === first ? 1 : 0), ...r });
    for (let i = 0; i < PER_BURST.payment; i++) {
      const key = `${tag}_${burst}_pay_${i}`;
      add('payment', i, {
        key, path: '/v1/payments',
        body: { amount: 2_000 + i, currency: 'EUR', payment_method: 'card', reference: key, test_scenario: paymentScenario(i) },
      });
    }
    refundable.forEach((paymentId, i) => add('refund', i, {
      key: `${tag}_${burst}_rf_${i}`, path: `/v1/payments/${paymentId}/refund`, paymentId, body: { amount: REFUND, reason: 'chaos' },
    }));
    for (let i = 0; i < PER_BURST.payout; i++) {
      const key = `${tag}_${burst}_po_${i}`;
      add('payout', i, {
        key, path: '/v1/payouts',
        body: { amount: 1_000 + i, currency: 'EUR', destination: PAYOUT_DESTINATION, reference: key, test_scenario: payoutScenario(i) },
      });
    }
    requests.push(...mine.sort((a, b) => a.order - b.order).map(({ order: _, ...r }) => r));
  }

  /** CLIENTS clients work through the burst's requests while the crash lands once it is under way. */
  async function burstWithCrash(burst: Burst): Promise<void> {
    const queue = requests.filter((r) => r.burst === burst.name);
    const keys = queue.map((r) => r.key);
    let next = 0;
    let answered = 0;
    const client = async () => {
      while (next < queue.length) {
        const r = queue[next++];
        r.outcome = await keyedRequest({
          baseUrl: () => split.baseUrl, method: 'POST', path: r.path, apiKey, idempotencyKey: r.key, body: r.body, totalMs: 45_000,
        });
        answered++;
      }
    };
    const crasher = async () => {
      await eventually(`the ${burst.name} burst under way`, async () => ((await burst.underWay(answered, keys)) ? true : undefined), 20_000);
      burst.inFlight = next - answered;
      burst.atProvider = await pendingPayouts(keys);
      const backlog = await Promise.all((['payments', 'payouts', 'ledger'] as const).map((s) => outboxGaps(sql, s)));
      burst.atCrash = `${burst.inFlight} requests in flight, ${burst.atProvider} payouts at their provider, `
        + `${backlog.reduce((n, g) => n + g.unpublished, 0)} events unpublished, `
        + `${backlog.reduce((n, g) => n + g.notInLedger, 0)} money events not in the ledger`;
      await burst.crash();
    };
    const started = Date.now();
    await Promise.all([crasher(), ...Array.from({ length: CLIENTS }, client)]);
    burst.atCrash += `; the burst took ${Date.now() - started} ms`;
  }

  /** This burst's payments the ledger has recorded. */
  async function inLedger(keys: string[]): Promise<number> {
    const { rows } = await sql.query(
      `SELECT count(*)::int AS n FROM ledger.transactions t JOIN payments.payments p ON p.id = t.entity_id
       WHERE t.entity_type = 'payment' AND p.reference = ANY($1)`, [keys]);
    return rows[0].n;
  }

  /** Events about this burst's payments that webhooks has stored. */
  async function inWebhooks(keys: string[]): Promise<number> {
    const { rows } = await sql.query(
      `SELECT count(*)::int AS n FROM webhooks.events e JOIN payments.payments p ON p.id = e.body::jsonb->'data'->'object'->>'id'
       WHERE p.reference = ANY($1)`, [keys]);
    return rows[0].n;
  }

  async function pendingPayouts(keys: string[]): Promise<number> {
    const { rows } = await sql.query(`SELECT count(*)::int AS n FROM payouts.payouts WHERE status = 'pending' AND reference = ANY($1)`, [keys]);
    return rows[0].n;
  }

  const ofKind = (kind: Kind) => requests.filter((r) => r.kind === kind);

  test('each crash landed in the middle of its burst', (t) => {
    t.diagnostic(`the stack started and the funds settled in ${setupMs} ms`);
    for (const b of bursts) t.diagnostic(`${b.name} killed with ${b.atCrash}`);
    for (const b of bursts) {
      // Killing payouts is about the payouts it was sending; every other crash about the requests it cut.
      if (b.name === 'payouts') assert.ok(b.atProvider! > 0, 'payouts was killed with no payout at its provider');
      else assert.ok(b.inFlight! > 0, `${b.name} was killed with no keyed request in flight`);
    }
  });

  for (const kind of ['payment', 'refund', 'payout'] as const) {
    test(`each ${kind} key created one ${kind}, and its client's final answer names it`, async (t) => {
      await assertOnceEach(t, sql, kind, ofKind(kind));
    });
  }

  test('every payout ends final, and the payout funds commit each open or sent payout once', async (t) => {
    // Payouts cut off at their provider are sent again (same payout id) once abandoned.
    const payouts = await eventually('every payout final', async () => {
      const { rows } = await sql.query('SELECT id, status, amount, fee_amount FROM payouts.payouts');
      return rows.every((p) => ['successful', 'failed', 'cancelled'].includes(p.status)) ? rows : undefined;
    }, 30_000);
    // services/payouts: a payout commits amount + fee when created; failing or cancelling releases it.
    const expected = payouts.filter((p) => p.status !== 'failed' && p.status !== 'cancelled')
      .reduce((sum, p) => sum + BigInt(p.amount) + BigInt(p.fee_amount), 0n);
    const { rows: funds } = await sql.query('SELECT currency, committed FROM payouts.payout_funds');
    const failed = payouts.filter((p) => p.status === 'failed').length;
    t.diagnostic(`${payouts.length} payouts (${failed} failed); committed ${funds.map((f) => `${f.committed} ${f.currency}`).join(', ')}`);
    assert.deepEqual(funds.map((f) => [f.currency, BigInt(f.committed)]), [['EUR', expected]]);
  });

  test('the ledger has one movement per final payment, refund and payout, and one journal entry per successful one', async (t) => {
    // What each entity's movement must say: a payment refunded since was still a successful payment.
    const outcomes = `
      WITH entities AS (
        SELECT 'payment' AS type, id, status FROM payments.payments
        UNION ALL SELECT 'refund', id, status FROM payments.refunds
        UNION ALL SELECT 'payout', id, status FROM payouts.payouts)
      SELECT type, id, status, CASE
        WHEN status IN ('successful', 'captured', 'partially_refunded', 'refunded') THEN 'successful'
        WHEN status IN ('failed', 'cancelled') THEN status
        ELSE 'open' END AS outcome
      FROM entities`;
    const open = () => sql.query(`SELECT * FROM (${outcomes}) o WHERE outcome = 'open'`);
    await eventually('every payment, refund and payout final', async () => ((await open()).rows.length === 0 ? true : undefined), 30_000)
      .catch(async (err) => {
        throw new Error(`${(err as Error).message}: ${JSON.stringify((await open()).rows.slice(0, 10))}`);
      });
    const movements = () => sql.query(
      `SELECT x.type, x.id, x.status, x.outcome,
              count(t.id)::int AS recorded,
              count(t.id) FILTER (WHERE t.status = x.outcome)::int AS matching,
              count(j.id)::int AS entries
       FROM (${outcomes}) x
       LEFT JOIN ledger.transactions t ON t.type = x.type AND t.entity_type = x.type AND t.entity_id = x.id
       LEFT JOIN ledger.journal_entries j ON j.transaction_id = t.id
       GROUP BY x.type, x.id, x.status, x.outcome`);
    // A cancelled payout moved nothing and has no event (docs/ledger.md): no transaction.
    const expected = (outcome: string) => (outcome === 'cancelled' ? 0 : 1);
    const rows = await eventually('every final payment, refund and payout in the ledger', async () => {
      const { rows } = await movements();
      return rows.every((r) => r.recorded >= expected(r.outcome)) ? rows : undefined;
    }, 45_000);
    for (const type of ['payment', 'refund', 'payout']) {
      const mine = rows.filter((r) => r.type === type);
      t.diagnostic(`${mine.length} ${type}s (${mine.filter((r) => r.outcome === 'failed').length} failed), `
        + `${mine.reduce((n, r) => n + r.recorded, 0)} movements in the ledger`);
    }
    for (const r of rows) {
      assert.equal(r.recorded, expected(r.outcome), `${r.id} (${r.status}): movements recorded`);
      assert.equal(r.matching, r.recorded, `${r.id} (${r.status}): the movement's status`);
      assert.equal(r.entries, r.outcome === 'successful' ? 1 : 0, `${r.id} (${r.status}): journal entries`);
    }
  });

  test('every event of the payments, payouts and ledger outboxes reached webhooks, and every money event the ledger', async (t) => {
    const gaps = await everyEventDelivered(sql, ['payments', 'payouts', 'ledger']);
    const { rows: [seen] } = await sql.query(
      `SELECT (SELECT coalesce(sum(redeliveries), 0) FROM ledger.consumed_events)::int AS replays,
              (SELECT count(*) FROM (SELECT attempts FROM payments.outbox UNION ALL SELECT attempts FROM payouts.outbox
                 UNION ALL SELECT attempts FROM ledger.outbox) o WHERE attempts > 0)::int AS retried`);
    t.diagnostic(`${Object.entries(gaps).map(([part, g]) => `${part}: ${g.events} events`).join('; ')}; `
      + `${seen.retried} had a failed publish counted against them; the ledger was handed ${seen.replays} events again that it had applied`);
    // Each resource announced itself once: nothing a crash cut short went missing or was told twice.
    const { rows: [r] } = await sql.query(
      `SELECT (SELECT count(*) FROM payments.payments p WHERE (SELECT count(*) FROM payments.outbox o
                 WHERE o.type = 'payment.created' AND o.payload->'data'->'object'->>'id' = p.id) <> 1)::int AS payments,
              (SELECT count(*) FROM payouts.payouts p WHERE (SELECT count(*) FROM payouts.outbox o
                 WHERE o.type IN ('payout.successful', 'payout.failed') AND o.payload->'data'->'object'->>'id' = p.id) <> 1)::int AS payouts`);
    assert.deepEqual(r, { payments: 0, payouts: 0 }, 'payments without exactly one payment.created, payouts without exactly one outcome event');
  });
});
