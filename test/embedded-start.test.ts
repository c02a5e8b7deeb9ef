import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { eventually } from './helpers/eventually.js';
import { freePort, spawnPart, type PartProcess } from './helpers/processes.js';
import { request } from './helpers/stack.js';

// What a new user gets from `npm start` on a machine with neither Postgres nor NATS:
// no DATABASE_URL, no NATS_URL; an embedded Postgres and the in-process bus.

const started: PartProcess[] = [];
let dataDir: string;
after(async () => {
  for (const p of started) await p.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function start(env: Record<string, string>): Promise<{ part: PartProcess; baseUrl: string }> {
  const part = spawnPart('all-in-one', 'all-in-one/main.js', env);
  started.push(part);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const m = /svc is running at (http:\/\/\S+)/.exec(part.output());
    if (m && /\n\n$/.test(part.output())) return { part, baseUrl: m[1] };
    if (part.child.exitCode !== null) throw new Error(`exited early:\n${part.output()}`);
    if (Date.now() > deadline) throw new Error(`never started:\n${part.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('first start prints a test key that makes a successful payment; data and key survive a restart', async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-embedded-'));
  const env = {
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
  };

  const first = await start(env);
  const key = /test API key \(shown once, keep it\): (svc_sk_test_\w+)/.exec(first.part.output())?.[1];
  assert.ok(key, `no key printed:\n${first.part.output()}`);
  assert.match(first.part.output(), /embedded Postgres; events: in-process bus/);
  // Beside the key, the one-time link that signs in to the dashboard as that key's merchant.
  assert.match(first.part.output(), new RegExp(`\\n    ${first.baseUrl}/dashboard/owner\\?token=[\\w-]{43}\\n`));
  assert.equal((await stat(join(dataDir, 'operator-token'))).mode & 0o077, 0, 'operator token readable by its owner only');
  // The printed dashboard link serves the sign-up page's app (built by npm install / npm run build).
  const dashboard = /dashboard: (http:\/\/\S+)/.exec(first.part.output())?.[1];
  assert.equal(dashboard, `${first.baseUrl}/dashboard/`);
  const page = await fetch(dashboard!);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  // Signing up needs no mail server: the confirmation link is printed here, to this gateway.
  const signUp = await request(first.baseUrl, 'POST', '/dashboard/api/register', {
    body: { email: 'first@example.com', password: 'correct horse battery', merchant_name: 'First shop' },
  });
  assert.equal(signUp.status, 202);
  const confirm = await eventually('the printed confirmation link', async () =>
    new RegExp(`${first.baseUrl}/dashboard/confirm\\?token=([\\w-]{43})`).exec(first.part.output())?.[1]);
  const confirmed = await request(first.baseUrl, 'POST', '/dashboard/api/register/confirm', { body: { token: confirm } });
  assert.deepEqual([confirmed.status, confirmed.body.user.email], [201, 'first@example.com']);

  const created = await request(first.baseUrl, 'POST', '/v1/payments', {
    key, body: { amount: 1000, currency: 'EUR', payment_method: 'card' },
  });
  assert.equal(created.status, 201);
  assert.equal(created.body.status, 'successful');
  const fetched = await request(first.baseUrl, 'GET', `/v1/payments/${created.body.id}`, { key });
  assert.deepEqual(fetched.body, created.body);
  assert.equal(await first.part.stop(), 0);

  const second = await start(env);
  assert.doesNotMatch(second.part.output(), /svc_sk_test_/, 'a secret is shown once, never again');
  assert.doesNotMatch(second.part.output(), /dashboard\/owner\?token=/, 'the sign-in link too');
  assert.match(second.part.output(), /sign in to the dashboard with a one-time link for its owner: node bin\/svc\.js merchant sign-in-link mer_\w+\n/);
  const again = await request(second.baseUrl, 'GET', `/v1/payments/${created.body.id}`, { key });
  assert.equal(again.status, 200);
  assert.deepEqual(again.body, created.body);
  assert.equal(await second.part.stop(), 0);
});
