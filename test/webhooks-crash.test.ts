// Killing the webhooks part (SIGKILL) in the middle of a burst of real payment events loses no
// event and duplicates none beyond at-least-once: a new webhooks process picks up where the dead
// one left off (JetStream redelivers what it had not acknowledged, claims' leases lapse).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { jetStreamForFile } from './helpers/nats-server.js';
import { spawnPart, waitForHealth } from './helpers/processes.js';
import { startSplitStack, type SplitStack } from './helpers/split-stack.js';
import { request } from './helpers/stack.js';
import { eventually, startReceiver, type Receiver } from './webhooks-support.js';

const { url: natsUrl, skip: withoutNats } = await jetStreamForFile();
const PAYMENTS = 60;
const TIMEOUT_MS = '2000';

describe('the webhooks process killed mid-burst', { skip: withoutNats }, () => {
  let split: SplitStack;
  let receiver: Receiver;

  before(async () => {
    split = await startSplitStack(natsUrl!, { WEBHOOK_TIMEOUT_MS: TIMEOUT_MS });
    // Slow enough that attempts are in flight when the process dies.
    receiver = await startReceiver({ status: 200, delayMs: 25 });
  });
  after(async () => {
    await receiver?.close();
    await split?.close();
  });

  test('every event reaches the receiver at least once and every delivery succeeds once', async (t) => {
    const manage = (method: string, path: string, body?: unknown) =>
      request(split.baseUrl, method, `/manage/v1${path}`, { key: split.operatorToken, body });
    const merchant = await manage('POST', '/merchants', { name: 'Crash merchant' });
    const projectId = merchant.body.project.id;
    const key = (await manage('POST', `/projects/${projectId}/keys`, { mode: 'test', name: 'k' })).body.secret;
    const endpoint = await manage('POST', `/projects/${projectId}/webhook-endpoints`, {
      mode: 'test', url: receiver.url, events: ['payment.created', 'payment.successful'],
    });
    assert.equal(endpoint.status, 201);

    const webhooksIndex = split.parts.findIndex((p) => p.name === 'webhooks');
    const dead = split.parts[webhooksIndex];
    let killedAt = -1;
    const killer = (async () => {
      await receiver.waitFor(20, 60_000);
      dead.child.kill('SIGKILL');
      killedAt = receiver.received.length;
    })();

    const paymentIds: string[] = [];
    let next = 0;
    await Promise.all(Array.from({ length: 6 }, async () => {
      while (next < PAYMENTS) {
        next++;
        const res = await request(split.baseUrl, 'POST', '/v1/payments', {
          key, body: { amount: 1000 + next, currency: 'EUR', payment_method: 'card' },
        });
        assert.equal(res.status, 201);
        paymentIds.push(res.body.id);
      }
    }));
    await killer;
    assert.ok(killedAt >= 20, 'killed once deliveries were flowing');
    assert.ok(killedAt < 2 * PAYMENTS, `killed before the burst was delivered (${killedAt} of ${2 * PAYMENTS})`);

    const webhooksUrl = split.serviceUrls.webhooks;
    const replacement = spawnPart('webhooks', 'services/webhooks/main.js', {
      DATABASE_URL: split.db.url, NATS_URL: natsUrl!, NATS_STREAM: split.stream, NATS_SUBJECT_PREFIX: split.subjectPrefix,
      HOST: '127.0.0.1', GRPC_PORT: new URL(webhooksUrl).port, LOG_LEVEL: 'warn', WEBHOOK_TIMEOUT_MS: TIMEOUT_MS,
      INTERNAL_TOKEN: split.internalToken, WEBHOOK_SECRET_KEY: split.webhookSecretKey,
    });
    split.parts.push(replacement);
    await waitForHealth(replacement, webhooksUrl);

    // Unacknowledged events come back after JetStream's ack wait (30 s); lapsed claims after 9 s.
    const expected = new Set(paymentIds.flatMap((id) => [`payment.created/${id}`, `payment.successful/${id}`]));
    const seen = () => new Set(receiver.received.map((r) => {
      const body = JSON.parse(r.body);
      return `${body.type}/${body.data.object.id}`;
    }));
    await eventually(async () => ([...expected].every((k) => seen().has(k)) ? true : undefined), 120_000, 'every event delivered');

    const db = new pg.Client({ connectionString: split.db.url });
    await db.connect();
    try {
      await eventually(async () => {
        const { rows } = await db.query(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE status <> 'succeeded'`);
        return rows[0].n === 0 ? true : undefined;
      }, 60_000, 'every delivery recorded as succeeded');
      const { rows } = await db.query(
        `SELECT d.id, d.event_id, count(a.*) FILTER (WHERE a.response_status BETWEEN 200 AND 299)::int AS ok
         FROM webhooks.deliveries d LEFT JOIN webhooks.delivery_attempts a ON a.delivery_id = d.id GROUP BY d.id`,
      );
      assert.equal(rows.length, expected.size, 'one delivery per event, none duplicated');
      assert.equal(new Set(rows.map((r) => r.event_id)).size, expected.size);
      for (const row of rows) assert.equal(row.ok, 1, `${row.id} succeeded once`);
      const events = await db.query('SELECT count(*)::int AS n FROM webhooks.events');
      assert.equal(events.rows[0].n, expected.size, 'each event stored once');
    } finally {
      await db.end();
    }
    // Duplicates at the receiver only for attempts the dead process made but never recorded.
    const perDelivery = new Map<string, number>();
    for (const r of receiver.received) {
      const id = String(r.headers['svc-delivery-id']);
      perDelivery.set(id, (perDelivery.get(id) ?? 0) + 1);
    }
    const repeats = [...perDelivery.values()].filter((n) => n > 1).length;
    t.diagnostic(`killed after ${killedAt} arrivals; ${receiver.received.length} arrivals for ${expected.size} events; ${repeats} repeated`);
    assert.ok(repeats <= 16, `${repeats} deliveries arrived twice (at most one per attempt in flight at the kill)`);
    assert.equal(receiver.maxConcurrentPerDelivery(), 1, 'never twice at once');
  });
});
