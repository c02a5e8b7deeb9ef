import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { newInternalToken } from '../services/platform/internal-callers.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { eventually } from './helpers/eventually.js';
import { natsServerMissing, startNatsServer, type NatsServer } from './helpers/nats-server.js';

// Needs a nats-server binary of its own (CI has one; a laptop may not: skipped there with the reason).
const skip = natsServerMissing();
import { exitOf, freePort, spawnPart, waitForHealth, type PartProcess } from './helpers/processes.js';

// A part started on its own against a NATS or Postgres that is not there yet waits for it; a
// producing part refuses a NATS whose max_payload cannot carry its largest event; a part missing
// required variables names every one of them in one message.

let db: TestDatabase;
const started: PartProcess[] = [];
const servers: NatsServer[] = [];

before(async () => {
  db = await createTestDatabase();
});
after(async () => {
  for (const p of started) await p.stop(5000);
  for (const s of servers) await s.close();
  await db?.drop();
});

/** The ledger: it emits settlement.created and calls no peer, so it starts with the fewest variables. */
async function startLedger(natsUrl: string, databaseUrl = db.url): Promise<{ part: PartProcess; url: string }> {
  const port = await freePort();
  const part = spawnPart('ledger', 'services/ledger/main.js', {
    DATABASE_URL: databaseUrl, NATS_URL: natsUrl, NATS_STREAM: `SVC_START_${port}`, NATS_SUBJECT_PREFIX: `svcstart.p${port}`,
    HOST: '127.0.0.1', GRPC_PORT: String(port), LOG_LEVEL: 'warn', INTERNAL_TOKEN: newInternalToken(),
  });
  started.push(part);
  return { part, url: `http://127.0.0.1:${port}` };
}

test('a producing part refuses to start when NATS max_payload cannot carry its largest event', { skip }, async () => {
  const small = await startNatsServer({ maxPayload: 64 * 1024 });
  servers.push(small);
  const { part } = await startLedger(small.url);
  assert.equal(await exitOf(part, 30_000), 78, part.output());
  assert.match(part.output(), /configuration: NATS_URL points at a NATS server that cannot carry this service's largest event: the server's max_payload \(65536 bytes\) is below 132096 bytes/);
});

test('a part started while NATS is down waits, logging it, and serves once NATS starts', { skip }, async () => {
  const port = await freePort();
  const { part, url } = await startLedger(`nats://127.0.0.1:${port}`);
  await eventually('the part to say what it waits for', async () =>
    (/start-up step \\"NATS JetStream connection\\" failed \(\w+ [A-Z_]+\), retrying in/.test(part.output()) ? true : undefined), 20_000);
  assert.equal(await exitOf(part, 1500), 'running', `it must not exit:\n${part.output()}`);
  const nats = await startNatsServer({ port });
  servers.push(nats);
  await waitForHealth(part, url, 30_000);
  // A 1-replica stream (and on Debian's 2.9, no sync_interval): the part says what may be lost.
  assert.match(part.output(), /WARNING: stream SVC_START_\d+ has 1 replica\(s\): an acknowledged event survives a broker crash only if/);
  const version = /Version:\s+(\d+)\.(\d+)/.exec(nats.output());
  assert.ok(version, nats.output());
  const old = Number(version[1]) === 2 && Number(version[2]) < 10;
  assert.equal(/WARNING: NATS [\d.]+ has no sync_interval/.test(part.output()), old, part.output());
});

test('a part and a gateway started while Postgres is unreachable wait for it instead of exiting', async () => {
  const closed = `postgres://postgres@127.0.0.1:${await freePort()}/nothing`;
  const { part } = await startLedger('nats://127.0.0.1:4222', closed);
  const gatewayPort = await freePort();
  const gateway = spawnPart('gateway', 'gateway/main.js', {
    DATABASE_URL: closed, HOST: '127.0.0.1', PORT: String(gatewayPort), LOG_LEVEL: 'warn',
    PAYMENTS_URL: 'http://127.0.0.1:1', ROUTING_RISK_URL: 'http://127.0.0.1:1', WEBHOOKS_URL: 'http://127.0.0.1:1',
    LEDGER_URL: 'http://127.0.0.1:1', PAYOUTS_URL: 'http://127.0.0.1:1', INTERNAL_TOKEN: newInternalToken(),
  });
  started.push(gateway);
  for (const p of [part, gateway]) {
    await eventually(`${p.name} to say it waits for Postgres`, async () =>
      (/start-up step \\"Postgres connection\\" failed \(\w+ ECONNREFUSED\), retrying in/.test(p.output()) ? true : undefined), 20_000);
    assert.equal(await exitOf(p, 1000), 'running', `${p.name} must not exit:\n${p.output()}`);
    assert.ok(!p.output().includes('start-up failed'), p.output());
  }
});

test('a part started without its required variables exits 78 naming all of them at once', async () => {
  const gateway = spawnPart('gateway', 'gateway/main.js', { HOST: '127.0.0.1', PORT: '0', PAYMENTS_URL: 'http://127.0.0.1:1' });
  const payouts = spawnPart('payouts', 'services/payouts/main.js', { DATABASE_URL: db.url, GRPC_PORT: '0' });
  started.push(gateway, payouts);
  assert.equal(await exitOf(gateway, 20_000), 78, gateway.output());
  assert.match(gateway.output(),
    /^configuration: DATABASE_URL, ROUTING_RISK_URL, WEBHOOKS_URL, LEDGER_URL, PAYOUTS_URL, INTERNAL_TOKEN are required to run gateway on its own/m);
  assert.equal(await exitOf(payouts, 20_000), 78, payouts.output());
  assert.match(payouts.output(), /^configuration: NATS_URL, ROUTING_RISK_URL, LEDGER_URL, PAYMENTS_URL, INTERNAL_TOKEN are required to run payouts on its own/m);
});

test('a port another process holds: exit 1 naming the port and the variables to change, no stack trace', async () => {
  const port = await freePort();
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
  try {
    const part = spawnPart('gateway', 'gateway/main.js', {
      DATABASE_URL: db.url, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', OPERATOR_TOKEN: newInternalToken(),
      INTERNAL_TOKEN: newInternalToken(), PAYMENTS_URL: 'http://127.0.0.1:1', ROUTING_RISK_URL: 'http://127.0.0.1:1',
      WEBHOOKS_URL: 'http://127.0.0.1:1', LEDGER_URL: 'http://127.0.0.1:1', PAYOUTS_URL: 'http://127.0.0.1:1',
    });
    started.push(part);
    assert.equal(await exitOf(part, 30_000), 1, part.output());
    assert.match(part.output(), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use by another process\\. .*PORT`));
    assert.doesNotMatch(part.output(), /\n\s+at /, 'no stack trace');
  } finally {
    holder.close();
  }
});
