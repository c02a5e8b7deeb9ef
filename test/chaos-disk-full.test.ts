import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { eventually } from './helpers/eventually.js';
import { freePort } from './helpers/processes.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// Chaos: Postgres on a 96 MB tmpfs, filled until its writes fail (and it stops). Unkeyed
// POST /v1/payments and GET /v1/payments answer 503 service_unavailable with Retry-After, never
// 500; every payment acknowledged before is still there once space is freed and Postgres is up
// again, and the service answers again without a restart of the process.

const PG_BIN = existsSync('/usr/lib/postgresql')
  ? readdirSync('/usr/lib/postgresql').map((v) => `/usr/lib/postgresql/${v}/bin`).find((d) => existsSync(`${d}/initdb`))
  : undefined;

/** Why a tmpfs Postgres cannot be made here, or false; in CI (root, Postgres installed) it must be. */
function tmpfsRefused(): string | false {
  const reason = !PG_BIN ? 'no initdb under /usr/lib/postgresql' : process.getuid?.() !== 0 ? 'mounting a tmpfs needs root' : false;
  if (reason && process.env.CI) throw new Error(`the full-disk test must run in CI: ${reason}`);
  return reason;
}

const skip = tmpfsRefused();
const asPostgres = (args: string[]) => execFileSync('runuser', ['-u', 'postgres', '--', ...args], { stdio: 'pipe' });

describe('Postgres out of disk space', { skip }, () => {
  const mount = mkdtempSync(join(tmpdir(), 'svc-full-disk-'));
  const data = join(mount, 'pg');
  const filler = join(mount, 'filler');
  let port: number;
  let stack: TestStack;
  let key: string;
  const pgCtl = (action: string, extra: string[] = []) =>
    spawnSync('runuser', ['-u', 'postgres', '--', `${PG_BIN}/pg_ctl`, '-D', data, '-w', '-t', '60', action, ...extra], { encoding: 'utf8' });
  const startPostgres = () => pgCtl('start', ['-o', `-p ${port} -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off`, '-l', join(tmpdir(), `pg-${port}.log`)]);

  before(async () => {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=96m', 'tmpfs', mount]);
    execFileSync('chown', ['postgres', mount]);
    asPostgres([`${PG_BIN}/initdb`, '-D', data, '-U', 'postgres', '--auth=trust', '--wal-segsize=1', '-N']);
    port = await freePort();
    assert.equal(startPostgres().status, 0, 'Postgres started');
    process.env.DATABASE_URL = `postgres://postgres@127.0.0.1:${port}/postgres`;
    stack = await startTestStack();
    key = (await stack.newMerchantKey('test')).secret;
  });
  after(async () => {
    await stack?.close().catch(() => undefined);
    pgCtl('stop', ['-m', 'immediate']);
    spawnSync('umount', ['-l', mount]);
    rmSync(mount, { recursive: true, force: true });
  });

  test('writes and reads answer 503 with Retry-After, nothing acknowledged is lost, service returns once space is freed', async () => {
    const pay = () => request(stack.baseUrl, 'POST', '/v1/payments', { key, body: { amount: 1_000, currency: 'EUR', payment_method: 'card' } });
    const acknowledged: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await pay();
      assert.equal(res.body?.status, 'successful', JSON.stringify(res.body));
      acknowledged.push(res.body.id);
    }
    // Every byte the tmpfs has left goes to a file: Postgres's next writes fail.
    spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=1M'], { stdio: 'ignore' });
    const refusals: Array<{ what: string; status: number; code?: string; retryAfter: string | null }> = [];
    await eventually('writes refused', async () => {
      const res = await pay();
      if (res.status < 300) {
        acknowledged.push(res.body.id);
        return undefined;
      }
      refusals.push({ what: 'create', status: res.status, code: res.body?.error?.code, retryAfter: res.headers.get('retry-after') });
      return true;
    }, 60_000);
    for (let i = 0; i < 3; i++) {
      const res = await pay();
      if (res.status < 300) acknowledged.push(res.body.id);
      else refusals.push({ what: 'create', status: res.status, code: res.body?.error?.code, retryAfter: res.headers.get('retry-after') });
      const list = await request(stack.baseUrl, 'GET', '/v1/payments', { key });
      if (list.status !== 200) refusals.push({ what: 'list', status: list.status, code: list.body?.error?.code, retryAfter: list.headers.get('retry-after') });
    }
    for (const r of refusals) {
      assert.equal(r.status, 503, JSON.stringify(r));
      assert.equal(r.code, 'service_unavailable', JSON.stringify(r));
      assert.ok(r.retryAfter, `no Retry-After: ${JSON.stringify(r)}`);
    }
    // Space back; Postgres started again if the full disk stopped it (as its supervisor would).
    rmSync(filler);
    if (pgCtl('status').status !== 0) assert.equal(startPostgres().status, 0, 'Postgres started again');
    await eventually('payments served again', async () => {
      const res = await pay();
      return res.body?.status === 'successful' ? res : undefined;
    }, 60_000);
    const sql = new pg.Client({ connectionString: stack.db.url });
    await sql.connect();
    try {
      const { rows } = await sql.query('SELECT id FROM payments.payments WHERE id = ANY($1)', [acknowledged]);
      assert.equal(rows.length, acknowledged.length, 'every acknowledged payment is kept');
    } finally {
      await sql.end();
    }
  });
});
