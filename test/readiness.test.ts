import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { Health, HealthCheckResponse_ServingStatus as Status } from '../proto/gen/grpc/health/v1/health_pb.js';
import { buildOpenApi } from '../services/contract/openapi.js';
import { SERVICE_NAMES, type ServiceName } from '../services/platform/config.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { eventually } from './helpers/eventually.js';
import { natsServerMissing, startNatsServer, type NatsServer } from './helpers/nats-server.js';
import { freePort } from './helpers/processes.js';
import { startSplitStack, type SplitStack } from './helpers/split-stack.js';
import { startTestStack, type TestStack } from './helpers/stack.js';

// Readiness as Kubernetes sees it: the gateway's /readyz and each part's grpc.health.v1 status
// turn false while Postgres or NATS is unreachable and true once it is back; /healthz stays up.

/** A TCP proxy on loopback in front of Postgres: cut() refuses new connections and drops open ones. */
async function postgresProxy(target: URL): Promise<{ url: string; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const open = () => new Promise<void>((resolve) => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => { client.destroy(); upstream.destroy(); });
      }
      client.pipe(upstream).pipe(client);
    });
    server.listen(port, '127.0.0.1', resolve);
  });
  const shut = () => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    if (!server) return resolve();
    server.close(() => resolve());
    server = undefined;
  });
  await open();
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return { url: url.toString(), cut: shut, restore: open, close: shut };
}

async function readyz(baseUrl: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${baseUrl}/readyz`);
  return { status: res.status, body: await res.json() };
}

describe('readiness of separate processes', { skip: natsServerMissing() }, () => {
  let db: TestDatabase;
  let proxy: Awaited<ReturnType<typeof postgresProxy>>;
  let nats: NatsServer;
  let split: SplitStack;

  const statusOf = async (part: ServiceName) => {
    const health = createClient(Health, createGrpcTransport({ baseUrl: split.serviceUrls[part] }));
    try {
      return (await health.check({ service: '' }, { timeoutMs: 2000 })).status;
    } catch (err) {
      // A part must ride out its Postgres or NATS going away; if one died, say which and why.
      const dead = split.parts.filter((p) => p.child.exitCode !== null || p.child.signalCode !== null);
      throw new Error(`${part}: ${(err as Error).message}; exited: ${dead.map((p) => `${p.name}\n${p.output()}`).join('\n') || 'none'}`);
    }
  };
  const allParts = async (want: Status) => {
    const statuses = await Promise.all(SERVICE_NAMES.map(statusOf));
    return statuses.every((s) => s === want) ? true : undefined;
  };
  const readyzIs = (status: number) => async () => {
    const r = await readyz(split.baseUrl);
    return r.status === status ? r.body : undefined;
  };

  before(async () => {
    db = await createTestDatabase();
    proxy = await postgresProxy(new URL(db.url));
    nats = await startNatsServer();
    split = await startSplitStack(nats.url, { DATABASE_URL: proxy.url, HEALTH_CHECK_INTERVAL_MS: '200' });
  });
  after(async () => {
    await split?.close();
    await nats?.close();
    await proxy?.close();
    await db?.drop();
  });

  test('ready with everything up; /readyz names every check', async () => {
    const r = await readyz(split.baseUrl);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, {
      status: 'ready', down: [],
      checks: { postgres: 'up', clock: 'up', payments: 'up', 'routing-risk': 'up', webhooks: 'up', ledger: 'up', payouts: 'up' },
    });
    assert.equal(await allParts(Status.SERVING), true);
  });

  test('Postgres cut: /readyz 503 naming it and every part NOT_SERVING; restored: ready again', async () => {
    await proxy.cut();
    const down = await eventually('/readyz to say Postgres and the parts are down', async () => {
      const body = await readyzIs(503)();
      return body?.down.length === 6 ? body : undefined;
    }, 20_000);
    assert.deepEqual([...down.down].sort(), ['ledger', 'payments', 'payouts', 'postgres', 'routing-risk', 'webhooks']);
    assert.equal(down.status, 'not_ready');
    await eventually('every part NOT_SERVING', () => allParts(Status.NOT_SERVING), 20_000);
    assert.equal((await fetch(`${split.baseUrl}/healthz`)).status, 200, 'alive all the same');

    await proxy.restore();
    await eventually('every part SERVING again', () => allParts(Status.SERVING), 30_000);
    await eventually('/readyz 200 again', readyzIs(200), 30_000);
  });

  test('NATS stopped: the parts NOT_SERVING and /readyz 503 (Postgres up); restarted: ready again', async () => {
    await nats.kill();
    await eventually('every part NOT_SERVING', () => allParts(Status.NOT_SERVING), 20_000);
    const body = await eventually('/readyz 503', readyzIs(503), 20_000);
    assert.equal(body.checks.postgres, 'up');
    assert.deepEqual([...body.down].sort(), ['ledger', 'payments', 'payouts', 'routing-risk', 'webhooks']);
    assert.equal((await fetch(`${split.baseUrl}/healthz`)).status, 200);

    await nats.restart();
    await eventually('every part SERVING again', () => allParts(Status.SERVING), 30_000);
    await eventually('/readyz 200 again', readyzIs(200), 30_000);
  });
});

describe('readiness of the all-in-one process', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack();
  });
  after(async () => {
    await stack?.close();
  });

  test('/healthz and /readyz answer without an API key, over the in-process parts, and are not in the OpenAPI document', async () => {
    const alive = await fetch(`${stack.baseUrl}/healthz`);
    assert.deepEqual([alive.status, await alive.json()], [200, { status: 'alive' }]);
    const r = await readyz(stack.baseUrl);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(Object.keys(r.body.checks).sort(), ['clock', 'ledger', 'payments', 'payouts', 'postgres', 'routing-risk', 'webhooks']);
    const paths = Object.keys(buildOpenApi('http://x', 'MIT').paths as object);
    assert.ok(!paths.some((p) => /healthz|readyz/.test(p)), 'probes are not part of the API');
  });
});
