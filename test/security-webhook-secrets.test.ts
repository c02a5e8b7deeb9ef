// Webhook signing secrets at rest: endpoint signing secrets were stored `plain:` whenever
// WEBHOOK_SECRET_KEY was unset, silently. Now the webhooks part run on its own (Kubernetes, the
// chart) refuses to start without the key (exit 78 naming it), seals the secrets stored plain
// before the key was set when it starts with one, and in one process (npm start, tests) says at
// start that the secrets are stored unencrypted.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createPool } from '../services/platform/db.js';
import { newInternalToken } from '../services/platform/internal-callers.js';
import { createLogger } from '../services/platform/logger.js';
import { migrate } from '../services/platform/migrate.js';
import { createSecretBox } from '../services/platform/secret-box.js';
import { deleteStream } from './helpers/bus.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { captureLogs } from './helpers/log-sink.js';
import { exitOf, freePort, spawnPart, waitForHealth, type PartProcess } from './helpers/processes.js';
import { startTestStack } from './helpers/stack.js';

const { url: natsUrl, skip: withoutNats } = await jetStreamForFile();
let db: TestDatabase;
const started: PartProcess[] = [];
const streams: string[] = [];

before(async () => {
  db = await createTestDatabase();
});
after(async () => {
  for (const p of started) await p.stop(5000);
  if (natsUrl) for (const s of streams) await deleteStream(natsUrl, s).catch(() => undefined);
  await db?.drop();
});

/** The webhooks part as its own process, as the chart runs it. */
async function startWebhooks(extra: Record<string, string>) {
  const port = await freePort();
  const stream = `SVC_SECRETS_${port}`;
  streams.push(stream);
  const part = spawnPart('webhooks', 'services/webhooks/main.js', {
    DATABASE_URL: db.url, NATS_URL: natsUrl ?? 'nats://127.0.0.1:4222', NATS_STREAM: stream, NATS_SUBJECT_PREFIX: `svcsecrets.p${port}`,
    HOST: '127.0.0.1', GRPC_PORT: String(port), LOG_LEVEL: 'info', INTERNAL_TOKEN: newInternalToken(), ...extra,
  });
  started.push(part);
  return { part, url: `http://127.0.0.1:${port}` };
}

test('the webhooks part on its own refuses to start without WEBHOOK_SECRET_KEY, naming it (exit 78)', async () => {
  const { part } = await startWebhooks({});
  assert.equal(await exitOf(part, 20_000), 78, part.output());
  assert.match(part.output(), /configuration: WEBHOOK_SECRET_KEY is required to run webhooks on its own; WEBHOOK_SECRET_KEY encrypts endpoint signing secrets at rest/);
});

// The part on its own consumes from JetStream: NATS_URL's, or on a laptop a nats-server of this file's own.
test('started with WEBHOOK_SECRET_KEY, it seals the signing secrets stored plain before, which still open to the same secret', { skip: withoutNats }, async () => {
  const pool = createPool(db.url, 'webhooks', 2);
  try {
    await migrate(pool, 'webhooks', 'services/webhooks');
    await pool.query(
      `INSERT INTO endpoints (id, merchant_id, project_id, mode, url, events, enabled, secret, created_at, updated_at)
       VALUES ('we_plain_before_the_key', 'mer_x', 'prj_x', 'test', 'https://example.com/hooks', '{*}', true,
               'plain:whsec_stored_before_the_key', now(), now())`);
    const key = randomBytes(32);
    const { part, url } = await startWebhooks({ WEBHOOK_SECRET_KEY: key.toString('hex') });
    await waitForHealth(part, url);
    const { rows } = await pool.query(`SELECT secret FROM endpoints WHERE id = 'we_plain_before_the_key'`);
    assert.match(rows[0].secret, /^aes256gcm:/);
    assert.ok(!rows[0].secret.includes('whsec_stored_before_the_key'));
    const box = createSecretBox(key, { variable: 'WEBHOOK_SECRET_KEY', allowPlain: false });
    assert.equal(box.open(rows[0].secret), 'whsec_stored_before_the_key');
    assert.doesNotMatch(part.output(), /whsec_/, 'no secret in any log line');
  } finally {
    await pool.end();
  }
});

test('in one process without WEBHOOK_SECRET_KEY the part warns at start that secrets are stored unencrypted', async () => {
  const logs = captureLogs();
  const stack = await startTestStack({ logger: createLogger('test', 'warn', logs.stream) });
  try {
    const warning = logs.lines.map((l) => JSON.parse(l)).find((l) => /WEBHOOK_SECRET_KEY is not set/.test(l.msg));
    assert.ok(warning, 'the start says so');
    assert.equal(warning.level, 40, 'as a warning');
    assert.match(warning.msg, /stored unencrypted/);
  } finally {
    await stack.close();
  }
});
