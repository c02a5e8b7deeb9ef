// Chaos: the NATS server killed (kill -9) mid-burst and started again WITHOUT its store (the
// volume lost), on the same port, while the ledger and webhooks are frozen (SIGSTOP), so the lost
// stream held events acknowledged to payments but consumed by no one. No part is restarted: they
// make the stream and their consumers again themselves, payments publishes again from its outbox
// what the lost stream held, and within a minute every payment has its ledger movement and its
// webhook deliveries exactly once. Readiness says not ready while NATS is gone, ready after.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import pg from 'pg';
import { Health, HealthCheckResponse_ServingStatus as Status } from '../proto/gen/grpc/health/v1/health_pb.js';
import { chaosTag, everyEventDelivered } from './helpers/chaos.js';
import { assertEachPaymentOnce, burstMerchant, paymentBurst, storedPayments } from './helpers/event-burst.js';
import { eventually } from './helpers/eventually.js';
import type { KeyedOutcome } from './helpers/keyed-client.js';
import { natsServerMissing, startNatsServer, type NatsServer } from './helpers/nats-server.js';
import { startSplitStack, type SplitStack } from './helpers/split-stack.js';
import { startReceiver, type Receiver } from './webhooks-support.js';

const PAYMENTS = 60;
const CLIENTS = 6;
/** Payments stored before the consumers freeze, and before NATS dies. */
const FREEZE_AFTER = 12;
const KILL_AFTER = 30;

const skip = natsServerMissing();

describe('NATS killed mid-burst and started again without its store, no part restarted', { skip }, () => {
  let nats: NatsServer;
  let split: SplitStack;
  let sql: pg.Pool;
  let receiver: Receiver;
  const tag = chaosTag('natsempty');
  const keys = Array.from({ length: PAYMENTS }, (_, i) => `${tag}_${i}`);
  let outcomes = new Map<string, KeyedOutcome>();
  const pids = new Map<string, number | undefined>();
  const seen = { paymentsNotServing: false, readyzDown: false, readyzBack: false, recoveredMs: 0 };

  const stored = () => storedPayments(sql, tag);
  const partNamed = (name: string) => split.parts.find((p) => p.name === name)!;
  const paymentsStatus = async () => {
    const health = createClient(Health, createGrpcTransport({ baseUrl: split.serviceUrls.payments }));
    return (await health.check({ service: '' }, { timeoutMs: 2000 })).status;
  };
  const readyz = async () => (await fetch(`${split.baseUrl}/readyz`)).status;

  before(async () => {
    nats = await startNatsServer();
    split = await startSplitStack(nats.url, { HEALTH_CHECK_INTERVAL_MS: '500', RATE_LIMIT_PER_MINUTE: '1000000' });
    sql = new pg.Pool({ connectionString: split.db.url, max: 3 });
    receiver = await startReceiver(200);
    for (const p of split.parts) pids.set(p.name, p.child.pid);
    const apiKey = await burstMerchant(split, receiver.url);
    const chaos = async () => {
      await eventually('the burst under way', async () => ((await stored()) >= FREEZE_AFTER ? true : undefined), 60_000);
      // Frozen consumers: what payments publishes from now on sits in the stream unconsumed.
      partNamed('ledger').child.kill('SIGSTOP');
      partNamed('webhooks').child.kill('SIGSTOP');
      await eventually('more payments stored', async () => ((await stored()) >= KILL_AFTER ? true : undefined), 60_000);
      await nats.kill();
      await nats.wipeStore();
      seen.paymentsNotServing = await eventually('payments NOT_SERVING', async () =>
        ((await paymentsStatus()) === Status.NOT_SERVING ? true : undefined), 20_000);
      seen.readyzDown = await eventually('/readyz 503', async () => ((await readyz()) === 503 ? true : undefined), 20_000);
      await nats.restart();
      const back = Date.now();
      partNamed('ledger').child.kill('SIGCONT');
      partNamed('webhooks').child.kill('SIGCONT');
      seen.readyzBack = await eventually('/readyz 200 again', async () => ((await readyz()) === 200 ? true : undefined), 60_000);
      seen.recoveredMs = Date.now() - back;
    };
    [, outcomes] = await Promise.all([chaos(), paymentBurst(split, apiKey, keys, CLIENTS)]);
  });
  after(async () => {
    for (const name of ['ledger', 'webhooks']) split?.parts.find((p) => p.name === name)?.child.kill('SIGCONT');
    await sql?.end();
    await receiver?.close();
    await split?.close();
    await nats?.close();
  });

  test('readiness: not ready while NATS was gone, ready again after it came back empty', (t) => {
    t.diagnostic(`ready again ${seen.recoveredMs} ms after NATS came back`);
    assert.deepEqual(seen, { ...seen, paymentsNotServing: true, readyzDown: true, readyzBack: true });
  });

  test('every key got its payment, and no part was restarted', async () => {
    for (const key of keys) assert.equal(outcomes.get(key)?.status, 201, `${key}: ${outcomes.get(key)?.history.join(', ')}`);
    for (const p of split.parts) {
      assert.equal(p.child.pid, pids.get(p.name), `${p.name} is the process it was`);
      assert.equal(p.child.exitCode, null, `${p.name} still running:\n${p.output()}`);
    }
  });

  test('within a minute every event is published again, in webhooks, in the ledger and in routing-risk', async (t) => {
    const gaps = await everyEventDelivered(sql, ['payments', 'ledger'], 60_000);
    t.diagnostic(JSON.stringify(gaps));
    assert.match(partNamed('payments').output(), /published again/, 'payments published again what the lost stream held');
  });

  test('each payment has one ledger movement and one delivery per subscribed event, none doubled', async () => {
    await assertEachPaymentOnce(sql, tag, PAYMENTS, () => new Set(receiver.received.map((r) => JSON.parse(r.body).id as string)));
  });
});
