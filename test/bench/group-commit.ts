import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { closedLoop, format, type Call } from './load.js';
import { countPgStatements, perPaymentPg, snapshotPg } from './counts.js';
import { startInProcessStack } from './in-process-stack.js';
import { projectPath } from '../../services/platform/paths.js';

// The group commit under load: `node dist/test/bench/group-commit.js` runs the six parts in
// this process (as `npm start` does, on DATABASE_URL and NATS_URL) and a closed loop of
// BENCH_CLIENTS (50) unkeyed and then keyed POST /v1/payments for BENCH_SECONDS (10) each, and
// counts per payment the statements and transactions of each part and the commits that write a
// payment row (the `created` commit and the outcome's; 2 per payment without group commit, scenario
// success). BENCH_ROOT=<another build> counts that build instead, for a before/after pair. Counts,
// not times, are the figures to read on a shared machine; the rate is printed beside them.

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const natsUrl = process.env.NATS_URL;
if (!process.env.DATABASE_URL || !natsUrl) {
  console.error('bench: set DATABASE_URL and NATS_URL (a real Postgres and NATS JetStream)');
  process.exit(2);
}

const root = process.env.BENCH_ROOT ?? projectPath();
const counter = await countPgStatements(root);
// Statements of the payments part that write a payment row: its synchronous commits.
let paymentCommits = 0;
const pg = (await import(pathToFileURL(join(root, 'node_modules/pg/lib/index.js')).href)).default;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (config: unknown, ...rest: unknown[]) {
  const text = typeof config === 'string' ? config : (config as { text?: string })?.text ?? '';
  if (/INSERT INTO payments \(/.test(text)) paymentCommits++;
  return query.call(this, config, ...rest);
};

const stack = await startInProcessStack(root, natsUrl);

let keys = 0;
const payment = (secret: string, keyed: boolean) => (): Call => ({
  method: 'POST', path: '/v1/payments',
  headers: {
    authorization: `Bearer ${secret}`, 'content-type': 'application/json',
    ...(keyed ? { 'idempotency-key': `gc-bench-${process.pid}-${++keys}` } : {}),
  },
  body: JSON.stringify({ amount: 1000, currency: 'EUR', payment_method: 'card', test_scenario: 'success' }),
});

try {
  const { secret } = stack;
  await closedLoop(stack.baseUrl, payment(secret, false), 201, CLIENTS, 3);
  console.log(`root ${root}, ${CLIENTS} clients, ${SECONDS} s, load average ${(await import('node:os')).loadavg()[0].toFixed(1)}`);
  for (const keyed of [false, true]) {
    const before = snapshotPg(counter);
    const commitsBefore = paymentCommits;
    const result = await closedLoop(stack.baseUrl, payment(secret, keyed), 201, CLIENTS, SECONDS);
    const n = result.requests;
    const pgCounts = perPaymentPg(before, snapshotPg(counter), new Map(), n);
    console.log(format(keyed ? 'keyed' : 'unkeyed', result));
    const parts = [...pgCounts].filter(([, c]) => c.statements > 0).map(([p, c]) => `${p} ${c.statements.toFixed(2)}/${c.transactions.toFixed(2)}`);
    console.log(`  per payment: payment-row commits ${((paymentCommits - commitsBefore) / n).toFixed(3)}; statements/transactions ${parts.join(', ')}`);
  }
} finally {
  await stack.close();
}
process.exit(0);
