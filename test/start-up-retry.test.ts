import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newInternalToken } from '../services/platform/internal-callers.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { natsServerMissing, startNatsServer, type NatsServer } from './helpers/nats-server.js';

// Needs a nats-server binary of its own (CI has one; a laptop may not: skipped there with the reason).
const skip = natsServerMissing();
import { startStallProxy, type StallProxy } from './helpers/nats-stall-proxy.js';
import { exitOf, freePort, spawnPart, waitForHealth, type PartProcess } from './helpers/processes.js';

// Every start-up step of a part retries until START_TIMEOUT_MS: a NATS that is back but slow to
// answer JetStream calls after the first connect (a broker restarted under load) is waited out,
// not a reason to exit; a dependency that never comes ends start-up with one line naming the step.

let db: TestDatabase;
let nats: NatsServer;
const started: PartProcess[] = [];
const proxies: StallProxy[] = [];

before(async () => {
  if (skip) return;
  db = await createTestDatabase();
  nats = await startNatsServer();
});
after(async () => {
  for (const p of started) await p.stop(5000);
  for (const p of proxies) await p.close();
  await nats?.close();
  await db?.drop();
});

/** The ledger on its own: it makes the stream, checks it, and adds its durable consumer. */
async function startLedger(env: Record<string, string>): Promise<{ part: PartProcess; url: string }> {
  const port = await freePort();
  const part = spawnPart('ledger', 'services/ledger/main.js', {
    DATABASE_URL: db.url, NATS_URL: nats.url, NATS_STREAM: `SVC_RETRY_${port}`, NATS_SUBJECT_PREFIX: `svcretry.p${port}`,
    HOST: '127.0.0.1', GRPC_PORT: String(port), LOG_LEVEL: 'warn', INTERNAL_TOKEN: newInternalToken(), ...env,
  });
  started.push(part);
  return { part, url: `http://127.0.0.1:${port}` };
}

test('JetStream calls timing out after the first connect: the part retries each step and serves once NATS keeps up', { skip }, async () => {
  // Slow for 12 s after the stream is made: the stream check and the consumer's calls time out (5 s each) at least once.
  const proxy = await startStallProxy(nats.url, 12_000);
  proxies.push(proxy);
  const { part, url } = await startLedger({ NATS_URL: proxy.url });
  await waitForHealth(part, url, 90_000);
  assert.ok(proxy.withheld() > 0, 'JetStream requests were left unanswered');
  // Logged as JSON: the step, the error's class, and the wait, each time.
  assert.match(part.output(), /"step":"NATS JetStream stream check","error_class":"NatsError TIMEOUT".*start-up step \\"NATS JetStream stream check\\" failed \(NatsError TIMEOUT\), retrying in [\d.]+ s/);
  assert.doesNotMatch(part.output(), /start-up failed/);
});

test('a dependency that never answers: exit 1 at START_TIMEOUT_MS with one line naming the step, no stack trace', { skip }, async () => {
  const closed = `postgres://postgres@127.0.0.1:${await freePort()}/nothing`;
  const { part } = await startLedger({ DATABASE_URL: closed, START_TIMEOUT_MS: '3000' });
  assert.equal(await exitOf(part, 30_000), 1, part.output());
  assert.match(part.output(),
    /^start-up failed: step "Postgres connection" did not succeed within 3 s \(START_TIMEOUT_MS\): Error ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:\d+$/m);
  assert.match(part.output(), /start-up step \\"Postgres connection\\" failed \(Error ECONNREFUSED\), retrying in/);
  assert.doesNotMatch(part.output(), /\n\s+at /, 'no stack trace');
});

test('a START_TIMEOUT_MS that is not a number is refused by name', { skip }, async () => {
  const { part } = await startLedger({ START_TIMEOUT_MS: 'soon' });
  assert.equal(await exitOf(part, 30_000), 78, part.output());
  assert.match(part.output(), /configuration: START_TIMEOUT_MS must be a whole number, got "soon"/);
});
