// `npm run bench:cold`: what the same work costs this machine at different rates. The bare
// baseline (a Fastify route doing one Postgres insert, no code of the project's in its path) under
// its closed loop, then open loops at fixed rates, each with the CPU per request of the server,
// its Postgres backends and the load generator, and how often the server's event loop was woken
// per request. Every request is the same work and the same wake-ups at every rate, so what the
// CPU per request gains as the rate falls is the machine's: a process woken from idle runs on
// cold caches. The six processes meet this on every hop of a payment at half their closed loop
// (npm run bench:tail). Printed, never judged by exit code.
import { cpuGroups } from './counts.js';
import { spendDuring } from './cpu-budget.js';
import { baselineInsert as insert, startBaseline } from './baseline.js';
import { closedLoop, openLoop, type Result } from './load.js';
import { wakeupsOf, wakeupsPerRequest } from '../helpers/wakeups.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
const RATES = (process.env.BENCH_COLD_RATES ?? '1280,640,160,40').split(',').map(Number);

if (!process.env.DATABASE_URL) {
  console.error('bench:cold: set DATABASE_URL (a real Postgres)');
  process.exit(2);
}
const databaseUrl = process.env.DATABASE_URL;

const { url, process: server } = await startBaseline(databaseUrl);
try {
  const parts = { baseline: server.child.pid! };
  const groups = async () => ({ ...(await cpuGroups(parts, databaseUrl)), bench: [process.pid] });
  const run = async (offered: string, load: () => Promise<Result>) => {
    const w0 = await wakeupsOf(parts);
    const { result, spend } = await spendDuring(groups, load);
    const woken = wakeupsPerRequest(w0, await wakeupsOf(parts), result.requests);
    const all = Object.values(spend).reduce((a, b) => a + b, 0);
    console.log(`| ${offered} | ${result.perSecond.toFixed(0)}/s | ${result.p50.toFixed(2)} ms | ` +
      `${Object.values(spend).map((v) => v.toFixed(3)).join(', ')} | ${all.toFixed(3)} | ${woken.toFixed(2)} | ` +
      `${woken > 0 ? ((spend.baseline / woken) * 1000).toFixed(0) : '—'} µs |`);
    return all;
  };
  await closedLoop(url, insert, 201, CLIENTS, 3);
  console.log(`baseline (one insert per request): CPU ms per request at each rate, ${SECONDS} s each`);
  console.log(`| offered | done | p50 | CPU ms per request: ${Object.keys(await groups()).join(', ')} | all | server wake-ups per request | server CPU per wake-up |`);
  console.log('|---|---|---|---|---|---|---|');
  const closed = await run(`closed loop, ${CLIENTS} clients`, () => closedLoop(url, insert, 201, CLIENTS, SECONDS));
  let lowest = closed;
  for (const rate of RATES) lowest = await run(`${rate}/s`, () => openLoop(url, insert, 201, rate, SECONDS));
  console.log(`at ${RATES[RATES.length - 1]}/s a request costs ${(lowest / closed).toFixed(1)} × its CPU under the closed loop`);
} finally {
  await server.stop();
}
