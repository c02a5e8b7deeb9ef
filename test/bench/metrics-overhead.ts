// The cost of the Prometheus metrics (issue 17): the all-in-one stack without a registry (A) and
// with one (B, its /metrics scraped every SCRAPE_SECONDS as Prometheus would), the same closed loop
// run A B, B A, A B, ..., each on a fresh process and database so neither side inherits the other's
// tables. Interleaving spreads the machine's drift over both sides; the figures are printed, never judged.
// Besides throughput and latency, each run reports the server process's CPU time per payment: on a
// busy two-core machine the rates swing with whatever else runs, while the CPU a payment costs the
// process barely does, so that ratio is the steadier measure of what the metrics add.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chargedTo } from './cpu-profile.js';
import { closedLoop, format, type Call, type Result } from './load.js';
import { startAllInOne } from '../helpers/all-in-one-process.js';
import { freePort } from '../helpers/processes.js';

const SCRAPE_SECONDS = 5;

type PaymentCall = (secret: string, keyed: boolean) => () => Call;
type Run = Result & { cpuMsPerPayment: number };

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** User + system CPU milliseconds `pid` has used so far (/proc/<pid>/stat fields 14 and 15). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** Scrapes /metrics every SCRAPE_SECONDS until stopped; counts the scrapes that answered 200. */
function scrapeEvery(url: string): { stop(): Promise<number> } {
  let ok = 0;
  let inFlight: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    inFlight = fetch(url).then(async (res) => {
      await res.text();
      if (res.status === 200) ok++;
    }, () => undefined);
  }, SCRAPE_SECONDS * 1000);
  return { stop: async () => { clearInterval(timer); await inFlight; return ok; } };
}

interface RunOptions { clients: number; seconds: number; warmup: number; profile?: string }

async function oneRun(natsUrl: string, call: PaymentCall, withMetrics: boolean, opts: RunOptions): Promise<Run> {
  const { clients, seconds, warmup, profile } = opts;
  const metricsPort = await freePort();
  const target = await startAllInOne(natsUrl, {
    name: `${withMetrics ? 'with metrics' : 'without metrics'}${profile ? ', profiled' : ''}`,
    entry: 'test/bench/all-in-one-server.js',
    env: {
      ...(withMetrics ? { BENCH_METRICS: '1', METRICS_PORT: String(metricsPort) } : {}),
      ...(profile ? { BENCH_PROFILE: profile } : {}),
    },
  });
  try {
    const plain = call(target.secret, false);
    await closedLoop(target.baseUrl, plain, 201, clients, warmup);
    const scraper = withMetrics ? scrapeEvery(`http://127.0.0.1:${metricsPort}/metrics`) : undefined;
    const pid = target.process.child.pid!;
    if (profile) process.kill(pid, 'SIGUSR2');
    const cpuBefore = cpuMs(pid);
    const result = await closedLoop(target.baseUrl, plain, 201, clients, seconds);
    const cpuMsPerPayment = (cpuMs(pid) - cpuBefore) / Math.max(1, result.requests);
    if (profile) {
      process.kill(pid, 'SIGUSR2');
      for (let i = 0; i < 100 && !existsSync(profile); i++) await sleep(100);
    }
    const scrapes = await scraper?.stop();
    console.log(format(`${target.name}, ${clients} clients`, result)
      + `  ${cpuMsPerPayment.toFixed(2)} CPU ms/payment` + (scraper ? `  ${scrapes} scrapes` : ''));
    return { ...result, cpuMsPerPayment };
  } finally {
    await target.close();
  }
}

const mean = (rs: Run[], pick: (r: Run) => number) => rs.reduce((s, r) => s + pick(r), 0) / rs.length;

/** `pairs` A B pairs; prints each run, then the means and with ÷ without. */
export async function metricsOverhead(
  natsUrl: string, call: PaymentCall, opts: { clients: number; seconds: number; warmup: number; pairs: number },
): Promise<void> {
  console.log(`metrics overhead: all-in-one, ${opts.clients} clients, ${opts.seconds} s per run, ${opts.pairs} pairs (A B, B A, ...), /metrics scraped every ${SCRAPE_SECONDS} s on B`);
  const without: Run[] = [];
  const withMetrics: Run[] = [];
  // The second run of a pair is slower whichever side it is (the first's database was just
  // dropped), so pairs alternate A B, B A: the order's effect falls on both sides alike.
  for (let i = 0; i < opts.pairs; i++) {
    for (const metricsOn of i % 2 === 0 ? [false, true] : [true, false]) {
      (metricsOn ? withMetrics : without).push(await oneRun(natsUrl, call, metricsOn, opts));
    }
  }
  const row = (label: string, pick: (r: Run) => number, unit: string, digits: number) => {
    const a = mean(without, pick);
    const b = mean(withMetrics, pick);
    return `| ${label} | ${a.toFixed(digits)}${unit} | ${b.toFixed(digits)}${unit} | ${(b / a).toFixed(3)} |`;
  };
  console.log(`
| mean of ${opts.pairs} runs each | without metrics | with metrics | with ÷ without |
|---|---|---|---|
${row('throughput', (r) => r.perSecond, '/s', 0)}
${row('p50', (r) => r.p50, ' ms', 1)}
${row('p99', (r) => r.p99, ' ms', 1)}
${row('server CPU per payment', (r) => r.cpuMsPerPayment, ' ms', 2)}`);
  const errors = [...without, ...withMetrics].reduce((s, r) => s + r.errors, 0);
  if (errors > 0) console.log(`note: ${errors} errors across the metrics-overhead runs`);
  await profiledShare(natsUrl, call, opts);
}

/** The metrics code's own modules: the registry, its series helpers and the instrumented connectors. */
const isMetricsCode = (owner: string) => owner === 'prom-client' || /metrics|instrumented/.test(owner);

/** One more run with metrics, profiled: the share of the server's busy CPU charged to the metrics code. */
async function profiledShare(natsUrl: string, call: PaymentCall, opts: RunOptions): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-profile-'));
  try {
    const profile = join(dir, 'with-metrics.cpuprofile');
    await oneRun(natsUrl, call, true, { ...opts, profile });
    const { busy, byOwner } = chargedTo(profile, isMetricsCode);
    const charged = [...byOwner.values()].reduce((s, n) => s + n, 0);
    const parts = [...byOwner].sort((a, b) => b[1] - a[1]).map(([owner, n]) => `${owner} ${((100 * n) / busy).toFixed(2)} %`);
    console.log(`\nprofiled: ${busy} busy CPU samples of the server, ${charged} in the metrics code = ${((100 * charged) / busy).toFixed(2)} % (${parts.join(', ')})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
