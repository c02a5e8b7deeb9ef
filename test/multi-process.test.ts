import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { connect } from 'nats';
import { Health, HealthCheckResponse_ServingStatus } from '../proto/gen/grpc/health/v1/health_pb.js';
import { PaymentsService } from '../proto/gen/svc/payments/v1/payments_pb.js';
import { newSecret, peerVariable, SERVICE_NAMES, type ServiceName } from '../services/shared/index.js';
import { deleteStream } from './helpers/bus.js';
import { createTestDatabase, requireInCi, type TestDatabase } from './helpers/database.js';
import { freePort, spawnPart, waitForHealth, waitForHttp, type PartProcess } from './helpers/processes.js';
import { request } from './helpers/stack.js';

requireInCi('NATS_URL');
const natsUrl = process.env.NATS_URL;

// Parts run on their own only against a real NATS; on a laptop without one this file cannot run.
describe('six parts as separate processes over real gRPC and NATS JetStream', { skip: !natsUrl && 'NATS_URL is not set' }, () => {
  let db: TestDatabase;
  const parts: PartProcess[] = [];
  const serviceUrls = {} as Record<ServiceName, string>;
  let baseUrl: string;
  const suffix = randomBytes(5).toString('hex');
  const stream = `SVC_MP_${suffix}`;
  const subjectPrefix = `svcmp.${suffix}`;
  const operatorToken = newSecret('svc_op_', 40);

  before(async () => {
    db = await createTestDatabase();
    for (const s of SERVICE_NAMES) serviceUrls[s] = `http://127.0.0.1:${await freePort()}`;
    const gatewayPort = await freePort();
    baseUrl = `http://127.0.0.1:${gatewayPort}`;
    const common: Record<string, string> = {
      DATABASE_URL: db.url,
      NATS_URL: natsUrl!,
      NATS_STREAM: stream,
      NATS_SUBJECT_PREFIX: subjectPrefix,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      OUTBOX_POLL_MS: '50',
      OPERATOR_TOKEN: operatorToken,
      ...Object.fromEntries(SERVICE_NAMES.map((s) => [peerVariable(s), serviceUrls[s]])),
    };
    for (const s of SERVICE_NAMES) {
      const part = spawnPart(s, `services/${s}/main.js`, { ...common, GRPC_PORT: new URL(serviceUrls[s]).port });
      parts.push(part);
    }
    const gateway = spawnPart('gateway', 'gateway/main.js', { ...common, PORT: String(gatewayPort) });
    parts.push(gateway);
    await Promise.all(parts.slice(0, SERVICE_NAMES.length).map((p) => waitForHealth(p, serviceUrls[p.name as ServiceName])));
    await waitForHttp(gateway, `${baseUrl}/v1/me`);
  });

  after(async () => {
    for (const p of parts) await p.stop();
    await deleteStream(natsUrl!, stream).catch(() => undefined);
    await db?.drop();
  });

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
      request(baseUrl, method, `/manage/v1${path}`, { key: operatorToken, body });
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
      await jsm.consumers.add(stream, { durable_name: 'mp_check', ack_policy: 'explicit' as never });
      const consumer = await nc.jetstream().consumers.get(stream, 'mp_check');
      const types: string[] = [];
      const deadline = Date.now() + 10_000;
      while (types.length < 2 && Date.now() < deadline) {
        const m = await consumer.next({ expires: 1000 });
        if (!m) continue;
        const event = JSON.parse(Buffer.from(m.data).toString());
        assert.equal(m.headers?.get('Nats-Msg-Id'), event.id);
        assert.equal(m.subject, `${subjectPrefix}.${event.type}`);
        if (event.data.object.id === created.body.id) types.push(event.type);
        m.ack();
      }
      assert.deepEqual(types.sort(), ['payment.created', 'payment.successful']);
    } finally {
      await nc.close();
    }
  });

  test('SIGTERM stops every part gracefully with exit code 0', async () => {
    for (const p of [...parts].reverse()) {
      assert.equal(await p.stop(), 0, `${p.name} exit code\n${p.output()}`);
    }
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
