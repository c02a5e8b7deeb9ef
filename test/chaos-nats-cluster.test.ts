// Chaos: the six parts against a three-node NATS cluster (NATS_URL the three seeds,
// NATS_STREAM_REPLICAS=3; the stream exists with one replica and another subject, as an install
// from before would have left it, and the parts bring it to three replicas and their subjects).
// Mid-burst the stream's leader is killed (kill -9), a new leader takes over, the dead node comes
// back; then the new leader is killed too and comes back. Nothing is lost or doubled: each payment
// has one ledger movement and one delivery of each event.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { StorageType, connect } from 'nats';
import pg from 'pg';
import { chaosTag, everyEventDelivered } from './helpers/chaos.js';
import { assertEachPaymentOnce, burstMerchant, paymentBurst, storedPayments } from './helpers/event-burst.js';
import { eventually } from './helpers/eventually.js';
import type { KeyedOutcome } from './helpers/keyed-client.js';
import { startNatsCluster, type NatsCluster } from './helpers/nats-cluster.js';
import { natsServerMissing } from './helpers/nats-server.js';
import { startSplitStack, type SplitStack } from './helpers/split-stack.js';
import { startReceiver, type Receiver } from './webhooks-support.js';

// Paced so that the burst outlasts two elections (about 10 s each here).
const PAYMENTS = 100;
const CLIENTS = 2;
const PAUSE_MS = 400;
/** Payments stored before the first leader dies; the second dies as soon as a new one is elected. */
const FIRST_KILL_AFTER = 12;

const skip = natsServerMissing();

describe('a three-node NATS cluster: the stream leader killed, then the next one, mid-burst', { skip }, () => {
  let cluster: NatsCluster;
  let split: SplitStack;
  let sql: pg.Pool;
  let receiver: Receiver;
  const tag = chaosTag('natscluster');
  const stream = `SVC_CLUSTER_${randomBytes(4).toString('hex')}`;
  const keys = Array.from({ length: PAYMENTS }, (_, i) => `${tag}_${i}`);
  let outcomes = new Map<string, KeyedOutcome>();
  const killed: string[] = [];
  const elections: number[] = [];
  /** Payments stored when each leader died: fewer than the burst's, so the burst was still going. */
  const storedAtKill: number[] = [];

  const streamInfo = async () => {
    const nc = await connect({ servers: cluster.nodes.filter((n) => n.running()).map((n) => n.url) });
    try {
      return await (await nc.jetstreamManager()).streams.info(stream);
    } finally {
      await nc.close();
    }
  };

  /**
   * Kills the stream's leader once `after` payments are stored and waits for another leader; then
   * starts the dead node again, while the burst (and the next kill) goes on.
   */
  const killLeader = async (after: number): Promise<Promise<void>> => {
    await eventually(`${after} payments stored`, async () => ((await storedPayments(sql, tag)) >= after ? true : undefined), 60_000);
    const leader = await eventually('the stream has a leader', () => cluster.leaderOf(stream), 30_000);
    const node = cluster.nodes.find((n) => n.name === leader)!;
    const started = Date.now();
    await node.kill();
    killed.push(leader);
    storedAtKill.push(await storedPayments(sql, tag));
    await eventually('another leader elected', async () => {
      const now = await cluster.leaderOf(stream);
      return now && now !== leader ? now : undefined;
    }, 60_000);
    elections.push(Date.now() - started);
    return node.restart();
  };

  before(async () => {
    cluster = await startNatsCluster();
    await eventually('the stream made with one replica', async () => {
      const nc = await connect({ servers: cluster.nodes.map((n) => n.url) });
      try {
        return await (await nc.jetstreamManager()).streams.add({ name: stream, subjects: ['before.>'], storage: StorageType.File, num_replicas: 1 });
      } catch {
        return undefined;
      } finally {
        await nc.close();
      }
    }, 30_000);
    split = await startSplitStack(cluster.seeds, {
      NATS_STREAM: stream, NATS_STREAM_REPLICAS: '3', HEALTH_CHECK_INTERVAL_MS: '500', RATE_LIMIT_PER_MINUTE: '1000000',
    });
    sql = new pg.Pool({ connectionString: split.db.url, max: 3 });
    receiver = await startReceiver(200);
    const apiKey = await burstMerchant(split, receiver.url);
    const chaos = async () => {
      const firstBack = await killLeader(FIRST_KILL_AFTER);
      const secondBack = await killLeader(FIRST_KILL_AFTER);
      await Promise.all([firstBack, secondBack]);
    };
    [, outcomes] = await Promise.all([chaos(), paymentBurst(split, apiKey, keys, CLIENTS, PAUSE_MS)]);
  });
  after(async () => {
    await sql?.end();
    await receiver?.close();
    await split?.close();
    await cluster?.close();
  });

  test('the parts brought the stream to three replicas and their subjects, and two different leaders died mid-burst', async (t) => {
    const info = await streamInfo();
    t.diagnostic(`killed ${killed.join(' then ')} with ${storedAtKill.join(', ')} payments stored; new leaders within ${elections.join(', ')} ms; `
      + `now led by ${info.cluster?.leader}`);
    assert.equal(info.config.num_replicas, 3);
    assert.deepEqual(info.config.subjects, ['before.>', `${split.subjectPrefix}.>`]);
    assert.equal(info.cluster?.replicas?.length, 2, 'two replicas beside the leader');
    assert.equal(killed.length, 2);
    assert.notEqual(killed[0], killed[1]);
    for (const n of storedAtKill) assert.ok(n < PAYMENTS, `a leader died with ${n} of ${PAYMENTS} payments stored`);
    assert.ok((await storedPayments(sql, tag)) === PAYMENTS);
  });

  test('every key got its payment', () => {
    for (const key of keys) assert.equal(outcomes.get(key)?.status, 201, `${key}: ${outcomes.get(key)?.history.join(', ')}`);
  });

  test('every event published and consumed, each payment moved once and delivered once per event', async (t) => {
    const gaps = await everyEventDelivered(sql, ['payments', 'ledger'], 60_000);
    t.diagnostic(JSON.stringify(gaps));
    await assertEachPaymentOnce(sql, tag, PAYMENTS, () => new Set(receiver.received.map((r) => JSON.parse(r.body).id as string)));
  });
});
