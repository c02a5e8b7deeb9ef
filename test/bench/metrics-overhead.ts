// The cost of the Prometheus metrics: the all-in-one stack without a registry (A) and
// with one (B, its /metrics scraped every SCRAPE_SECONDS as Prometheus would), in interleaved
// pairs (paired-runs.ts), then one profiled run: the share of the server's CPU the metrics code takes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chargedTo } from './cpu-profile.js';
import { oneRun, pairedRuns, type PaymentCall, type RunOptions, type Side } from './paired-runs.js';
import { freePort } from '../helpers/processes.js';

const SCRAPE_SECONDS = 5;

/** Scrapes /metrics every SCRAPE_SECONDS until stopped; counts the scrapes that answered 200. */
function scrapeEvery(url: string): { stop(): Promise<string> } {
  let ok = 0;
  let inFlight: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    inFlight = fetch(url).then(async (res) => {
      await res.text();
      if (res.status === 200) ok++;
    }, () => undefined);
  }, SCRAPE_SECONDS * 1000);
  return { stop: async () => { clearInterval(timer); await inFlight; return `${ok} scrapes`; } };
}

const ENTRY = 'test/bench/all-in-one-server.js';
const without = (): Side => ({ variant: { name: 'without metrics', entry: ENTRY, env: {} } });

async function withMetrics(profile?: string): Promise<Side> {
  const metricsPort = await freePort();
  return {
    variant: {
      name: `with metrics${profile ? ', profiled' : ''}`,
      entry: ENTRY,
      env: { BENCH_METRICS: '1', METRICS_PORT: String(metricsPort), ...(profile ? { BENCH_PROFILE: profile } : {}) },
    },
    beside: () => scrapeEvery(`http://127.0.0.1:${metricsPort}/metrics`),
    profile,
  };
}

/** `pairs` A B pairs; prints each run, then the means and with ÷ without. */
export async function metricsOverhead(
  natsUrl: string, call: PaymentCall, opts: RunOptions & { pairs: number },
): Promise<void> {
  console.log(`metrics overhead: all-in-one, ${opts.clients} clients, ${opts.seconds} s per run, ${opts.pairs} pairs (A B, B A, ...), /metrics scraped every ${SCRAPE_SECONDS} s on B`);
  await pairedRuns(natsUrl, call, { a: without(), b: await withMetrics() }, opts);
  await profiledShare(natsUrl, call, opts);
}

/** The metrics code's own modules: the registry, its series helpers and the instrumented connectors. */
const isMetricsCode = (owner: string) => owner === 'prom-client' || /metrics|instrumented/.test(owner);

/** One more run with metrics, profiled: the share of the server's busy CPU charged to the metrics code. */
async function profiledShare(natsUrl: string, call: PaymentCall, opts: RunOptions): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-profile-'));
  try {
    const profile = join(dir, 'with-metrics.cpuprofile');
    await oneRun(natsUrl, call, await withMetrics(profile), opts);
    const { busy, byOwner } = chargedTo(profile, isMetricsCode);
    const charged = [...byOwner.values()].reduce((s, n) => s + n, 0);
    const parts = [...byOwner].sort((a, b) => b[1] - a[1]).map(([owner, n]) => `${owner} ${((100 * n) / busy).toFixed(2)} %`);
    console.log(`\nprofiled: ${busy} busy CPU samples of the server, ${charged} in the metrics code = ${((100 * charged) / busy).toFixed(2)} % (${parts.join(', ')})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
