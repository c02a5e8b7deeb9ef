// `node dist/test/bench/six-processes-cpu.js`: the six parts as separate processes under a closed
// loop of POST /v1/payments (BENCH_CLIENTS, 16; BENCH_SECONDS, 8), and each process's CPU time per
// payment over the measured window (/proc/<pid>/stat, no idle subtracted: under load the idle
// background is noise), the database's Postgres processes and the NATS server included. With
// BENCH_PROFILE_DIR, every part process is profiled over that window (profile-preload.ts): each
// profile's busy samples are printed by package and folder, and its CPU split by who could change
// it (cpu-breakdown.ts), so the last line says what a payment would still cost if the project's own
// code cost nothing. BENCH_ROOT runs another checkout's parts. BENCH_ALL_IN_ONE=1 runs `npm start`'s
// process instead (profiled whole), so BENCH_CLIENTS=1 shows where a lone payment's CPU goes in
// either mode. BENCH_FRACTION (say 0.5) measures an open loop at that fraction of the closed loop's
// rate instead, as `npm run bench:tail` loads it. Prints figures; never passes or fails on them.
import { availableParallelism } from 'node:os';
import { mkdir } from 'node:fs/promises';
import { closedLoop, openLoop, type Call } from './load.js';
import { cpuGroups } from './counts.js';
import { spendDuring } from './cpu-budget.js';
import { chargedTo } from './cpu-profile.js';
import { breakdownOfFile, OWNERS, type Owner } from './cpu-breakdown.js';
import { startAllInOne } from '../helpers/all-in-one-process.js';
import { newSplitMerchantKey, startSplitStack } from '../helpers/split-stack.js';
import { projectPath } from '../../services/platform/paths.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
const ALL_IN_ONE = process.env.BENCH_ALL_IN_ONE === '1';
const FRACTION = process.env.BENCH_FRACTION ? Number(process.env.BENCH_FRACTION) : undefined;

if (!process.env.NATS_URL || !process.env.DATABASE_URL) {
  console.error('six-processes-cpu: set DATABASE_URL and NATS_URL');
  process.exit(2);
}
/** Project files by folder (services/payments), packages by name, the rest by what V8 calls it. */
function groupOf(owner: string): string {
  return owner.includes('/') && !owner.startsWith('@') ? owner.split('/').slice(0, 2).join('/') : owner;
}

interface Target {
  baseUrl: string;
  secret: string;
  databaseUrl: string;
  pids: Array<{ name: string; pid: number }>;
  close(): Promise<void>;
}

async function start(): Promise<Target> {
  const preload = projectPath('dist', 'test', 'bench', 'profile-preload.js');
  const profiling: Record<string, string> = PROFILE_DIR ? { NODE_OPTIONS: `--import ${preload}`, BENCH_PROFILE_DIR: PROFILE_DIR } : {};
  if (ALL_IN_ONE) {
    const one = await startAllInOne(process.env.NATS_URL, { name: 'all-in-one', entry: 'all-in-one/main.js', env: profiling });
    return { ...one, pids: [{ name: 'all-in-one', pid: one.process.child.pid! }] };
  }
  const split = await startSplitStack(process.env.NATS_URL!, {
    RATE_LIMIT_PER_MINUTE: '10000000', LOG_LEVEL: 'error', DATABASE_POOL_SIZE: '10', OUTBOX_PACK: 'true', ...profiling,
  });
  const pids = split.parts.map((p) => ({ name: p.name, pid: p.child.pid! }));
  return {
    baseUrl: split.baseUrl, secret: await newSplitMerchantKey(split), databaseUrl: split.db.url, pids, close: () => split.close(),
  };
}

/** Each profiled process's busy samples by owner, then a payment's CPU by who could change it. */
function printProfiles(profiled: Array<{ name: string; pid: number }>, perPayment: Record<string, number>): void {
  const ms: Record<Owner | 'postgres' | 'nats', number> = {
    ours: 0, packages: 0, runtime: 0, 'socket writes': 0, postgres: perPayment.postgres ?? 0, nats: perPayment.nats ?? 0,
  };
  const rows: string[] = [];
  for (const p of profiled) {
    const file = `${PROFILE_DIR}/main-${p.pid}.cpuprofile`;
    const { busy, byOwner } = chargedTo(file, () => true);
    const byGroup = new Map<string, number>();
    for (const [owner, n] of byOwner) byGroup.set(groupOf(owner), (byGroup.get(groupOf(owner)) ?? 0) + n);
    const top = [...byGroup].sort((a, b) => b[1] - a[1]).slice(0, 14)
      .map(([owner, n]) => `${owner} ${((100 * n) / busy).toFixed(1)} %`);
    console.log(`  ${p.name} (${file}), busy samples by owner: ${top.join(', ')}`);
    const { share } = breakdownOfFile(file);
    for (const o of OWNERS) ms[o] += share[o] * perPayment[p.name];
    rows.push(`| ${p.name} | ${perPayment[p.name].toFixed(2)} | ${OWNERS.map((o) => `${(100 * share[o]).toFixed(1)} %`).join(' | ')} |`);
  }
  const total = Object.values(ms).reduce((a, b) => a + b, 0);
  const outside = total - ms.ours;
  console.log(`
CPU ms per payment by who could change it (busy samples of each process; socket writes: the write system calls)
| process | CPU ms per payment | ${OWNERS.join(' | ')} |
|---|---|${OWNERS.map(() => '---').join('|')}|
${rows.join('\n')}
all processes: ours ${ms.ours.toFixed(2)}, packages ${ms.packages.toFixed(2)}, runtime ${ms.runtime.toFixed(2)}, socket writes ${ms['socket writes'].toFixed(2)}, Postgres ${ms.postgres.toFixed(2)}, NATS ${ms.nats.toFixed(2)}; all ${total.toFixed(2)} ms
without the project's own code: ${outside.toFixed(2)} ms per payment, at most ${((availableParallelism() * 1000) / outside).toFixed(0)} payments/s on ${availableParallelism()} cores`);
}

if (PROFILE_DIR) await mkdir(PROFILE_DIR, { recursive: true });
const target = await start();
try {
  const { secret, pids } = target;
  const call = (): Call => ({
    method: 'POST', path: '/v1/payments',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 1000, currency: 'EUR', payment_method: 'card', test_scenario: 'success' }),
  });
  await closedLoop(target.baseUrl, call, 201, CLIENTS, 3);
  // The rate of the open loop: a fraction of this closed loop's.
  const rate = FRACTION === undefined ? undefined
    : Math.max(1, Math.round((await closedLoop(target.baseUrl, call, 201, CLIENTS, SECONDS)).perSecond * FRACTION));
  const groups = () => cpuGroups(Object.fromEntries(pids.map((p) => [p.name, p.pid])), target.databaseUrl);
  const profiled = PROFILE_DIR ? pids : [];
  const { result, spend: perPayment } = await spendDuring(groups, async () => {
    for (const p of profiled) process.kill(p.pid, 'SIGUSR2');
    const loop = rate === undefined
      ? await closedLoop(target.baseUrl, call, 201, CLIENTS, SECONDS)
      : await openLoop(target.baseUrl, call, 201, rate, SECONDS);
    for (const p of profiled) process.kill(p.pid, 'SIGUSR2');
    return loop;
  });
  const perPart = Object.entries(perPayment).map(([name, ms]) => `${name} ${ms.toFixed(2)}`);
  const load = rate === undefined ? `${CLIENTS} clients` : `open loop at ${rate}/s (${FRACTION} of the closed loop)`;
  console.log(`${process.env.BENCH_ROOT ?? 'this checkout'}: ${load}, ${result.perSecond.toFixed(0)}/s, `
    + `p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, ${result.errors} errors; CPU ms per payment: ${perPart.join(', ')}`);
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the profiles are written
  if (profiled.length > 0) printProfiles(profiled, perPayment);
} finally {
  await target.close();
}
process.exit(0);
