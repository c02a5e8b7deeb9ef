// What admission costs a request: GET /v1/me (authentication, the IP allow-list, the rate limit and a
// handler that reads nothing more) on the in-process gateway over loopback HTTP with a real
// Postgres, one client at a time and then 16 at once, with the database transactions each request
// took (pg_stat_database's commits, every statement outside a transaction being one). Printed,
// never asserted. Run: `npm run build && node dist/test/bench/admission-latency.js` (BENCH_REQUESTS,
// BENCH_CLIENTS).
import { performance } from 'node:perf_hooks';
import { request, startTestStack } from '../helpers/stack.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);

const stack = await startTestStack();
const { keyId, secret } = await stack.newMerchantKey();
await stack.manage('PUT', `/keys/${keyId}/rate-limit`, { per_minute: 10_000_000 });
const commits = async () => Number((await stack.query(
  'SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')).rows[0].xact_commit);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

async function run(label: string, clients: number): Promise<void> {
  const times: number[] = [];
  const before = await commits();
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    for (let i = c; i < REQUESTS; i += clients) {
      const t = performance.now();
      const r = await request(stack.baseUrl, 'GET', '/v1/me', { key: secret });
      times.push(performance.now() - t);
      if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${JSON.stringify(r.body)}`);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  // Two reads of pg_stat_database are commits too; its counters are flushed by the backends lazily.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const perRequest = ((await commits()) - before - 1) / REQUESTS;
  console.log(`${label.padEnd(10)} ${REQUESTS} requests: p50 ${pct(times, 0.5).toFixed(2)} ms, p99 ${pct(times, 0.99).toFixed(2)} ms, `
    + `${(REQUESTS / seconds).toFixed(0)} requests/s, ${perRequest.toFixed(2)} database transactions per request`);
}

await run('warm-up', 1);
await run('1 client', 1);
await run(`${CLIENTS} clients`, CLIENTS);
await stack.close();
