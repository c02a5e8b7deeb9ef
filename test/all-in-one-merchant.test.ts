import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import { launchChromium, PASSWORD, watch } from './helpers/browser-page.js';
import { DashboardBrowser, tokenOf } from './helpers/dashboard-browser.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { eventually } from './helpers/eventually.js';
import { freePort, spawnPart, type PartProcess } from './helpers/processes.js';
import { request } from './helpers/stack.js';
import { runSvc } from './helpers/svc-cli.js';

// One merchant from the terminal to the dashboard, as a new user meets `npm start` (a real process,
// a fresh data folder, no mail server, no OPERATOR_TOKEN): the first start prints a test key and a
// one-time owner sign-in link of the same merchant; a payment made with the key is on the dashboard
// the link signs into (API and browser); the sign-up page says the link is in the terminal; a
// restart prints neither secret again and says how to get a key and a link, and that advice works.

const OWNER = 'owner@example.com';
const started: PartProcess[] = [];
let db: TestDatabase;
let dir: string;
let browser: Browser;
let env: Record<string, string>;
let baseUrl: string;

before(async () => {
  db = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'svc-first-hour-'));
  const port = await freePort();
  // A laptop: no NATS_URL (the in-process bus), no SMTP_HOST, no OPERATOR_TOKEN (made in DATA_DIR).
  env = { DATABASE_URL: db.url, PORT: String(port), DATA_DIR: dir };
  baseUrl = `http://127.0.0.1:${port}`;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  for (const p of started) await p.stop();
  await db?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `npm start`'s process, once its start-up text is printed whole. */
async function start(): Promise<PartProcess> {
  const part = spawnPart('all-in-one', 'all-in-one/main.js', env);
  started.push(part);
  await eventually('the start-up text', async () => {
    if (part.child.exitCode !== null) throw new Error(`exited early:\n${part.output()}`);
    return /svc is running at[\s\S]*\n\n$/.test(part.output()) ? true : undefined;
  }, 120_000);
  return part;
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ownerLinkIn = (text: string) =>
  [...text.matchAll(new RegExp(`${escaped(baseUrl)}/dashboard/owner\\?token=[\\w-]{43}`, 'g'))].map((m) => m[0]);

let first: { key: string; merchantId: string; projectId: string; link: string; paymentId: string };

test('the first start prints a test key and a one-time sign-in link of one merchant; the key\'s payment is in the dashboard the link signs into', async () => {
  const part = await start();
  const out = part.output();
  const key = /test API key \(shown once, keep it\): (svc_sk_test_\w+)/.exec(out)?.[1];
  const ids = /merchant (mer_\w+), project (prj_\w+)/.exec(out);
  const links = ownerLinkIn(out);
  assert.ok(key && ids, `a key and the merchant's ids:\n${out}`);
  assert.equal(links.length, 1, `one sign-in link, printed once:\n${out}`);
  assert.match(out, /dashboard: \S+\/dashboard\/ \(sign in with the link below to see the test key's payments\)/);
  assert.match(out, /dashboard sign-in link for this merchant's owner \(shown once; works once, until \d{4}-\d\d-\d\dT/);
  assert.doesNotMatch(out, /sign up there/);
  first = { key, merchantId: ids[1], projectId: ids[2], link: links[0], paymentId: '' };

  const paid = await request(baseUrl, 'POST', '/v1/payments', { key, body: { amount: 1234, currency: 'EUR', payment_method: 'card' } });
  assert.equal(paid.status, 201, JSON.stringify(paid.body));
  first.paymentId = paid.body.id;

  // Only the token's hash is stored; the token is in no row of the gateway's schema.
  const token = tokenOf(first.link);
  assert.deepEqual(await gatewayRowsWith(token), []);
  const stored = await query('SELECT merchant_id, used_at FROM gateway.owner_links WHERE token_hash = $1', [sha256(token)]);
  assert.deepEqual(stored, [{ merchant_id: first.merchantId, used_at: null }]);

  // The browser: the link's page, an email and a password, then the payments of the printed key.
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const seen = { requests: [] as string[], problems: [] as string[] };
  watch(page, seen);
  await page.goto(first.link);
  await page.getByRole('heading', { name: 'Sign in as the merchant\'s owner' }).waitFor();
  await page.getByLabel('Email').fill(OWNER);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Home' }).waitFor();
  await page.goto(`${baseUrl}/dashboard/payments`);
  await page.getByText(first.paymentId).waitFor();
  assert.match(await page.locator('main').innerText(), /€12\.34/);
  // Inviting a teammate says where the invitation is, too: no mail server, the terminal.
  await page.goto(`${baseUrl}/dashboard/settings/team`);
  await page.getByLabel('Email').fill('teammate@example.com');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await page.getByRole('status').filter({ hasText: 'printed in the terminal where npm start runs, in the mail "You are invited to Local merchant"' }).waitFor();
  assert.deepEqual(seen.problems, []);
  await page.close();

  // The API: the link works once; the account it made signs in to that merchant, whose payments list the key's.
  const again = await new DashboardBrowser(baseUrl).call('POST', '/owner-link/accept', { token, email: 'other@example.com', password: PASSWORD });
  assert.equal(again.status, 422, JSON.stringify(again.body));
  assert.equal(again.body.error.code, 'invalid_token');
  const owner = new DashboardBrowser(baseUrl);
  const signedIn = await owner.call('POST', '/sign-in', { email: OWNER, password: PASSWORD });
  assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
  assert.deepEqual([signedIn.body.merchant.id, signedIn.body.project.id, signedIn.body.role], [first.merchantId, first.projectId, 'owner']);
  const listed = await owner.call('GET', '/payments');
  assert.deepEqual(listed.body.data.map((p: { id: string }) => p.id), [first.paymentId]);
});

test('without a mail server, the sign-up page says the link is printed in npm start\'s terminal, where it is', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${baseUrl}/dashboard/register`);
  await page.getByLabel('Business name').fill('Second shop');
  await page.getByLabel('Email').fill('second@example.com');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  const notice = page.getByRole('status').filter({ hasText: 'terminal' });
  await notice.waitFor();
  assert.equal(await notice.innerText(), 'No mail server is configured, so the link is not emailed: it is printed in the terminal '
    + 'where npm start runs, in the mail "Confirm your dashboard account". Open it within a day to finish creating your account.');
  assert.doesNotMatch(await page.locator('main').innerText(), /Check your email/);
  await page.close();
  await eventually('the confirmation mail on the terminal', async () =>
    (new RegExp(`To: second@example\\.com\\nSubject: Confirm your dashboard account\\n[\\s\\S]*${escaped(baseUrl)}/dashboard/confirm\\?token=`)
      .test(started.at(-1)!.output()) ? true : undefined));
});

test('a restart prints no key and no link again, says how to get both, and its sign-in-link command works', async () => {
  assert.ok(first, 'the first start ran');
  assert.equal(await started.at(-1)!.stop(), 0);
  const part = await start();
  const out = part.output();
  assert.doesNotMatch(out, /svc_sk_test_/, 'the key is shown once');
  assert.deepEqual(ownerLinkIn(out), [], 'no sign-in link is printed on a restart');
  assert.match(out, new RegExp(`create more keys with: node bin/svc.js key create --project ${first.projectId} --mode test --name NAME`));
  const advice = new RegExp(
    `sign in to the dashboard as its owner \\(${escaped(OWNER)}\\), or get a one-time sign-in link: node bin/svc.js (merchant sign-in-link ${first.merchantId})\n`);
  const command = advice.exec(out)?.[1];
  assert.ok(command, `the restart says how to sign in:\n${out}`);

  // The advice as given, from the folder npm start ran in: no URL, no token (both are in DATA_DIR).
  const cli = await runSvc(command.split(' '), { DATA_DIR: dir });
  assert.equal(cli.code, 0, cli.stderr);
  const links = ownerLinkIn(cli.stdout);
  assert.equal(links.length, 1, cli.stdout);
  assert.match(cli.stdout, new RegExp(`for an owner of merchant ${first.merchantId} \\(works once, until `));
  const teammate = new DashboardBrowser(baseUrl);
  const joined = await teammate.call('POST', '/owner-link/accept', { token: tokenOf(links[0]), email: 'partner@example.com', password: PASSWORD });
  assert.equal(joined.status, 201, JSON.stringify(joined.body));
  assert.deepEqual([joined.body.merchant.id, joined.body.role], [first.merchantId, 'owner']);
  assert.deepEqual((await teammate.call('GET', '/payments')).body.data.map((p: { id: string }) => p.id), [first.paymentId]);

  // An existing account accepts a link with its own password only; an unknown merchant has no link.
  const operator = (await readFile(join(dir, 'operator-token'), 'utf8')).trim();
  const issued = await request(baseUrl, 'POST', `/manage/v1/merchants/${first.merchantId}/owner-links`, { key: operator });
  assert.equal(issued.status, 201, JSON.stringify(issued.body));
  const wrong = await new DashboardBrowser(baseUrl).call('POST', '/owner-link/accept', {
    token: tokenOf(issued.body.url), email: OWNER, password: 'not the password at all',
  });
  assert.deepEqual([wrong.status, wrong.body.error.code], [401, 'invalid_credentials']);
  const unknown = await request(baseUrl, 'POST', '/manage/v1/merchants/mer_unknown/owner-links', { key: operator });
  assert.deepEqual([unknown.status, unknown.body.error.code], [404, 'resource_not_found']);
  assert.ok(unknown.headers.get('x-request-id'));
});

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function query(sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** The gateway tables holding `text` anywhere in a row. */
async function gatewayRowsWith(text: string): Promise<string[]> {
  const tables = await query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'gateway' AND table_type = 'BASE TABLE'`);
  const found: string[] = [];
  for (const { table_name: table } of tables) {
    const rows = await query(`SELECT 1 FROM gateway."${table}" t WHERE t::text LIKE '%' || $1 || '%' LIMIT 1`, [text]);
    if (rows.length > 0) found.push(String(table));
  }
  return found;
}
