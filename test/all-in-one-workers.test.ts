import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import pg from 'pg';
import { Agent } from 'undici';
import { deleteStream } from './helpers/bus.js';
import { createTestDatabase, requireInCi, type TestDatabase } from './helpers/database.js';
import { eventually } from './helpers/eventually.js';
import { exitOf, freePort, spawnPart, waitForHttp, type PartProcess } from './helpers/processes.js';

// `npm start` with WORKERS on an external Postgres and NATS, as real processes: every worker serves
// payments on the one port, the first merchant and the start-up text come once, a killed worker is
// replaced, SIGTERM stops them all; without NATS_URL it stays one process.

requireInCi('DATABASE_URL');
requireInCi('NATS_URL');
const natsUrl = process.env.NATS_URL!;
const started: PartProcess[] = [];
const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const p of started) await p.stop();
  for (const c of cleanups) await c().catch(() => undefined);
});

async function start(env: Record<string, string>) {
  const db: TestDatabase = await createTestDatabase();
  const dir = await mkdtemp(join(tmpdir(), 'svc-workers-'));
  const suffix = randomBytes(5).toString('hex');
  cleanups.push(() => db.drop(), () => rm(dir, { recursive: true, force: true }), () => deleteStream(natsUrl, `SVC_WORKERS_${suffix}`));
  const port = await freePort();
  const part = spawnPart('all-in-one', 'all-in-one/main.js', {
    DATABASE_URL: db.url, NATS_STREAM: `SVC_WORKERS_${suffix}`, NATS_SUBJECT_PREFIX: `svcworkers.${suffix}`,
    PORT: String(port), DATA_DIR: dir, LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '1000000', ...env,
  });
  started.push(part);
  return { part, db, baseUrl: `http://127.0.0.1:${port}` };
}

/** The node processes started by `pid`. */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n').map(Number);
  } catch {
    return []; // pgrep exits 1 when there are none
  }
}

/** The pids whose gateway logged a POST /v1/payments (pino names the process of each line). */
function paymentPids(output: string): Set<number> {
  const pids = new Set<number>();
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { pid?: number; req?: { method?: string; url?: string } };
    if (entry.req?.method === 'POST' && entry.req.url === '/v1/payments') pids.add(entry.pid!);
  }
  return pids;
}

// A connection per payment: cluster hands out connections, not requests, round-robin.
const pay = (baseUrl: string, secret: string) => fetch(`${baseUrl}/v1/payments`, {
  method: 'POST',
  headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
  body: JSON.stringify({ amount: 1000, currency: 'EUR', payment_method: 'card' }),
  dispatcher: new Agent({ pipelining: 0 }),
} as RequestInit);

test('WORKERS=2 on DATABASE_URL and NATS_URL: both workers serve payments, one start-up text and one first merchant, a killed worker is replaced, SIGTERM stops all', async () => {
  const { part, db, baseUrl } = await start({ NATS_URL: natsUrl, WORKERS: '2' });
  await waitForHttp(part, `${baseUrl}/healthz`);
  await eventually('the start-up text', async () => (/Make a payment:/.test(part.output()) ? true : undefined), 60_000);
  const workers = childrenOf(part.child.pid!);
  assert.equal(workers.length, 2, part.output());

  assert.equal(part.output().match(/svc is running at/g)?.length, 1, 'the start-up text is printed once');
  const secrets = part.output().match(/test API key \(shown once, keep it\): (\S+)/g) ?? [];
  assert.equal(secrets.length, 1, 'the first key is shown once');
  assert.equal(part.output().match(/dashboard sign-in link for this merchant's owner/g)?.length, 1);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT count(*)::int AS n FROM gateway.merchants');
    assert.equal(rows[0].n, 1, 'the first start makes one merchant');
  } finally {
    await client.end();
  }

  const secret = secrets[0]!.split(': ')[1]!;
  await eventually('payments from both workers', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => pay(baseUrl, secret)));
    for (const a of answers) assert.equal(a.status, 201, await a.text());
    return paymentPids(part.output()).size === 2 ? true : undefined;
  }, 30_000);
  assert.deepEqual([...paymentPids(part.output())].sort(), [...workers].sort());

  process.kill(workers[0]!, 'SIGKILL');
  const replacement = await eventually('a replacement worker', async () => {
    const now = childrenOf(part.child.pid!);
    return now.length === 2 ? now.find((pid) => !workers.includes(pid)) : undefined;
  }, 60_000);
  await eventually(`a payment served by the replacement ${replacement}`, async () => {
    for (const a of await Promise.all(Array.from({ length: 8 }, () => pay(baseUrl, secret)))) assert.equal(a.status, 201);
    return paymentPids(part.output()).has(replacement) ? true : undefined;
  }, 60_000);
  assert.equal(part.output().match(/svc is running at/g)?.length, 1, 'a replacement prints nothing');

  assert.equal(await part.stop(), 0, part.output().slice(-3000));
  for (const pid of [workers[1]!, replacement]) {
    assert.throws(() => process.kill(pid, 0), /ESRCH/, `worker ${pid} has exited`);
  }
});

test('without NATS_URL npm start stays one process, and refuses WORKERS=2 naming the variable', async () => {
  const alone = await start({});
  await waitForHttp(alone.part, `${alone.baseUrl}/healthz`);
  await eventually('the start-up text', async () => (/svc is running at/.test(alone.part.output()) ? true : undefined), 60_000);
  assert.deepEqual(childrenOf(alone.part.child.pid!), [], 'no workers');
  assert.equal(await alone.part.stop(), 0);

  const refused = await start({ WORKERS: '2' });
  assert.equal(await exitOf(refused.part, 60_000), 78, refused.part.output());
  assert.match(refused.part.output(), /^configuration: WORKERS above 1 needs DATABASE_URL and NATS_URL/m);
});
