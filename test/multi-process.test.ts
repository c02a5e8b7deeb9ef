import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { connect } from 'nats';
import { Health, HealthCheckResponse_ServingStatus } from '../proto/gen/grpc/health/v1/health_pb.js';
import { PaymentsService } from '../proto/gen/svc/payments/v1/payments_pb.js';
import { SERVICE_NAMES, type ServiceName } from '../services/platform/config.js';
import { isInternalType } from '../services/platform/internal-events.js';
import { eventsOfMessage } from './helpers/bus.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { spawnPart } from './helpers/processes.js';
import { startSplitStack, type SplitStack } from './helpers/split-stack.js';
import { request } from './helpers/stack.js';

const { url: natsUrl, skip: withoutNats } = await jetStreamForFile();

// Parts run on their own only against a real NATS: NATS_URL's, or on a laptop a nats-server of this file's own.
describe('six parts as separate processes over real gRPC and NATS JetStream', { skip: withoutNats }, () => {
  let split: SplitStack;
  let baseUrl: string;
  let serviceUrls: Record<ServiceName, string>;

  before(async () => {
    split = await startSplitStack(natsUrl!);
    baseUrl = split.baseUrl;
    serviceUrls = split.serviceUrls;
  });
  after(() => split?.close());

  test('every service part answers grpc.health.v1.Health for itself and its services', async () => {
    for (const s of SERVICE_NAMES) {
      const health = createClient(Health, createGrpcTransport({ baseUrl: serviceUrls[s] }));
      assert.equal((await health.check({ service: '' })).status, HealthCheckResponse_ServingStatus.SERVING, s);
    }
    const payments = createClient(Health, createGrpcTransport({ baseUrl: serviceUrls.payments }));
    const res = await payments.check({ service: PaymentsService.typeName });
    assert.equal(res.status, HealthCheckResponse_ServingStatus.SERVING);
  });

  test('the first payment succeeds, GET returns it identically, and its events are in the stream', async () => {
    const manage = (method: string, path: string, body?: unknown) =>
      request(baseUrl, method, `/manage/v1${path}`, { key: split.operatorToken, body });
    const merchant = await manage('POST', '/merchants', { name: 'Split merchant' });
    assert.equal(merchant.status, 201);
    const key = await manage('POST', `/projects/${merchant.body.project.id}/keys`, { mode: 'test', name: 'k' });
    assert.equal(key.status, 201);

    const created = await request(baseUrl, 'POST', '/v1/payments', {
      key: key.body.secret, body: { amount: 4200, currency: 'EUR', payment_method: 'card' },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.status, 'successful');
    assert.equal(created.body.attempts.length, 1);
    const fetched = await request(baseUrl, 'GET', `/v1/payments/${created.body.id}`, { key: key.body.secret });
    assert.deepEqual(fetched.body, created.body);

    const nc = await connect({ servers: natsUrl });
    try {
      const jsm = await nc.jetstreamManager();
      await jsm.consumers.add(split.stream, { durable_name: 'mp_check', ack_policy: 'explicit' as never });
      const consumer = await nc.jetstream().consumers.get(split.stream, 'mp_check');
      const types: string[] = [];
      const deadline = Date.now() + 10_000;
      while (types.length < 2 && Date.now() < deadline) {
        const m = await consumer.next({ expires: 1000 });
        if (!m) continue;
        // The message id is checked: the event's id, or its pack's first and last event ids.
        for (const { subject, event } of eventsOfMessage(m.subject, m.data, m.headers?.get('Nats-Msg-Id'))) {
          assert.equal(subject, `${split.subjectPrefix}.${event.type}`);
          // The payment's public events; internal.payment.decided beside them is the ledger's.
          if (!isInternalType(event.type) && event.data.object.id === created.body.id) types.push(event.type);
        }
        m.ack();
      }
      assert.deepEqual(types.sort(), ['payment.created', 'payment.successful']);
    } finally {
      await nc.close();
    }
  });

  test('SIGTERM stops every part gracefully with exit code 0', async () => {
    const codes = await split.stop();
    for (const p of split.parts) assert.equal(codes[p.name], 0, `${p.name} exit code\n${p.output()}`);
  });
});

test('a part refuses to start on bad configuration and names the variable', async () => {
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['services/payments/main.js', { DATABASE_URL: 'postgres://x@127.0.0.1/x', NATS_URL: 'nats://127.0.0.1:4222' }, /ROUTING_RISK_URL/],
    ['services/ledger/main.js', { NATS_URL: 'nats://127.0.0.1:4222' }, /DATABASE_URL/],
    ['services/ledger/main.js', { DATABASE_URL: 'postgres://x@127.0.0.1/x', NATS_URL: 'nats://127.0.0.1:4222', GRPC_PORT: 'fifty' }, /GRPC_PORT/],
    ['gateway/main.js', { DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
  ];
  for (const [entry, env, pattern] of cases) {
    const part = spawnPart(entry, entry, env);
    const code = await new Promise<number | null>((resolve) => part.child.once('exit', resolve));
    assert.equal(code, 78, `${entry}: ${part.output()}`);
    assert.match(part.output(), pattern);
  }
});
