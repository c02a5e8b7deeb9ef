import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import pg from 'pg';
import { newSecret } from '../services/platform/ids.js';
import { createSecretBox } from '../services/platform/secret-box.js';
import { deleteStream } from './helpers/bus.js';
import { eventually } from './helpers/eventually.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { exitOf, freePort, spawnPart, waitForHttp, type PartProcess } from './helpers/processes.js';
import { request } from './helpers/stack.js';
import { runSvc } from './helpers/svc-cli.js';

// What `npm start` makes and refuses as a real process: the keys it makes in DATA_DIR (also with
// DATABASE_URL set) and keeps across restarts, and a second start whose embedded Postgres port is
// held by another process, which says which port and which variable instead of "undefined"; after
// a restart the real merchant and project ids, and the base URL `node bin/svc.js` finds on its own.

const started: PartProcess[] = [];
const dirs: string[] = [];
const databases: TestDatabase[] = [];
after(async () => {
  for (const p of started) await p.stop();
  for (const d of databases) await d.drop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-all-in-one-'));
  dirs.push(dir);
  return dir;
}

test('a second npm start while another process holds the embedded Postgres port: one line naming the port and EMBEDDED_POSTGRES_PORT, exit 1', async () => {
  const port = await freePort();
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
  try {
    const part = spawnPart('all-in-one', 'all-in-one/main.js', {
      DATA_DIR: await dataDir(), PORT: String(await freePort()), EMBEDDED_POSTGRES_PORT: String(port),
    });
    started.push(part);
    assert.equal(await exitOf(part, 60_000), 1, part.output());
    assert.match(part.output(), new RegExp(
      `^start-up failed: port ${port} of the embedded Postgres \\(EMBEDDED_POSTGRES_PORT\\) on 127\\.0\\.0\\.1 is already in use ` +
      `by another process, perhaps another \`npm start\`\\. Stop that process, or give this one a free port: EMBEDDED_POSTGRES_PORT=${port + 1}`, 'm'));
    assert.doesNotMatch(part.output(), /undefined/);
    assert.doesNotMatch(part.output(), /\n\s+at /, 'no stack trace');
  } finally {
    holder.close();
  }
});

test('with DATABASE_URL set, npm start makes PROVIDER_SECRET_KEY and WEBHOOK_SECRET_KEY in DATA_DIR, uses them, and reads them again after a restart', async () => {
  const db = await createTestDatabase();
  databases.push(db);
  const dir = await dataDir();
  const operatorToken = newSecret('svc_op_', 40);
  const port = await freePort();
  const stream = `SVC_AIO_${port}`;
  // Without NATS_URL (a laptop) npm start uses its in-process bus.
  const natsUrl = process.env.NATS_URL;
  const env = {
    DATABASE_URL: db.url, ...(natsUrl ? { NATS_URL: natsUrl, NATS_STREAM: stream, NATS_SUBJECT_PREFIX: `svcaio.p${port}` } : {}),
    PORT: String(port), OPERATOR_TOKEN: operatorToken, DATA_DIR: dir,
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  const start = async () => {
    const part = spawnPart('all-in-one', 'all-in-one/main.js', env);
    started.push(part);
    await waitForHttp(part, `${baseUrl}/healthz`, 120_000);
    // The banner is printed once the gateway listens, which /healthz may answer just before.
    await eventually('the start-up banner', async () => (/svc is running at/.test(part.output()) ? true : undefined), 30_000);
    return part;
  };
  const manage = (method: string, path: string, body?: unknown) =>
    request(baseUrl, method, `/manage/v1${path}`, { key: operatorToken, body });
  try {
    const first = await start();
    const keys: Record<string, string> = {};
    for (const file of ['provider-secret-key', 'webhook-secret-key']) {
      keys[file] = await readFile(join(dir, file), 'utf8');
      assert.match(keys[file], /^[0-9a-f]{64}\n$/, `${file}: 32 bytes in hex`);
      assert.equal((await stat(join(dir, file))).mode & 0o077, 0, `${file} is readable by its owner only`);
      assert.ok(!first.output().includes(keys[file].trim()), `${file} is never printed`);
    }
    assert.match(first.output(), /PROVIDER_SECRET_KEY, WEBHOOK_SECRET_KEY: from .+ \(made on first start; keep them with the database\)/);

    const merchant = await manage('POST', '/merchants', { name: 'Keys merchant' });
    assert.equal(merchant.status, 201, JSON.stringify(merchant.body));
    const projectId = merchant.body.project.id as string;
    // Connecting a provider needs PROVIDER_SECRET_KEY (503 not_configured without it).
    const account = await manage('POST', `/projects/${projectId}/provider-accounts`, {
      mode: 'test', provider: 'stripe', name: 'Stripe test',
      credentials: { secret_key: 'sk_test_local_keys', webhook_secret: 'whsec_local_keys' },
    });
    assert.equal(account.status, 201, JSON.stringify(account.body));
    const endpoint = await manage('POST', `/projects/${projectId}/webhook-endpoints`, {
      url: 'http://127.0.0.1:9/hook', events: ['payment.successful'], mode: 'test',
    });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    // Both are sealed under the keys in the files: the files' keys open them.
    const sealed = await storedSecrets(db.url, endpoint.body.id);
    assert.match(sealed.endpoint, /^aes256gcm:/, 'the endpoint signing secret is encrypted at rest');
    const box = (file: string, variable: string) =>
      createSecretBox(Buffer.from(keys[file].trim(), 'hex'), { variable, allowPlain: false });
    assert.equal(box('webhook-secret-key', 'WEBHOOK_SECRET_KEY').open(sealed.endpoint), endpoint.body.secret);
    assert.deepEqual(JSON.parse(box('provider-secret-key', 'PROVIDER_SECRET_KEY').open(sealed.credentials)),
      { secret_key: 'sk_test_local_keys', webhook_secret: 'whsec_local_keys' });
    assert.equal(await first.stop(), 0);

    // A restart reads the same keys (a new one would leave every sealed secret unreadable).
    const second = await start();
    for (const file of Object.keys(keys)) assert.equal(await readFile(join(dir, file), 'utf8'), keys[file], `${file} kept`);
    assert.match(second.output(), /PROVIDER_SECRET_KEY, WEBHOOK_SECRET_KEY: from /);
    const shown = await manage('GET', `/provider-accounts/${account.body.id}`);
    assert.equal(shown.status, 200, JSON.stringify(shown.body));

    // The restart names the real ids, not a placeholder...
    const made = first.output().match(/merchant (mer_\w+), project (prj_\w+)/);
    assert.ok(made, `the first start names the merchant and project it made:\n${first.output()}`);
    assert.match(second.output(), new RegExp(`merchant ${made[1]}, project ${made[2]}\n.*node bin/svc.js key create --project ${made[2]} --mode test --name NAME`));
    assert.doesNotMatch(second.output(), /PRJ_ID/);
    // ...and, the merchant having no owner yet, how to get the one-time sign-in link again.
    assert.match(second.output(), new RegExp(`sign in to the dashboard with a one-time link for its owner: node bin/svc.js merchant sign-in-link ${made[1]}\n`));
    // ...and writes where it listens, which `node bin/svc.js` in that folder uses without --api-url or SVC_URL.
    assert.equal(await readFile(join(dir, 'base-url'), 'utf8'), `${baseUrl}\n`);
    const cliEnv: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir, SVC_OPERATOR_TOKEN: operatorToken };
    delete cliEnv.SVC_URL;
    const listed = await runSvc(['key', 'list', '--project', made[2], '--json'], cliEnv);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(JSON.parse(listed.stdout).data[0].name, 'Local test key', 'the bootstrap key, found on this port');
    assert.equal(await second.stop(), 0);
  } finally {
    if (natsUrl) await deleteStream(natsUrl, stream).catch(() => undefined);
  }
});

/** The stored (sealed) forms of an endpoint's signing secret and of the one provider account's credentials. */
async function storedSecrets(databaseUrl: string, endpointId: string): Promise<{ endpoint: string; credentials: string }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const endpoint = await client.query('SELECT secret FROM webhooks.endpoints WHERE id = $1', [endpointId]);
    const credentials = await client.query('SELECT sealed FROM payments.provider_credentials');
    assert.equal(credentials.rowCount, 1);
    return { endpoint: endpoint.rows[0].secret, credentials: credentials.rows[0].sealed };
  } finally {
    await client.end();
  }
}
