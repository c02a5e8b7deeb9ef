import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Pool } from './db.js';
import type { PartName } from './config.js';

// One registry per process (all-in-one/ shares it between its parts), handed to each part's
// build as a dependency; only a main.ts serves it (serveMetrics). Series are defined through the
// helpers below, whose labels take values from fixed enumerations only: a value outside a label's
// set is recorded as `other`, so an id, a URL or a secret can never become a label value.

/** A label's allowed values: a fixed list, or a test for values that come from code (route patterns, proto names). */
export type LabelValues = readonly string[] | { readonly matches: (value: string) => boolean };
export type LabelSpec<L extends string> = Record<L, LabelValues>;
export type Labels<L extends string> = Record<L, string>;

/** Where a value outside its enumeration goes. */
export const OTHER = 'other';

/** Seconds buckets for calls that take milliseconds to seconds (HTTP, gRPC, providers, webhook attempts). */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Process-local memo of allowed values, so the hot path checks a Set, not a regex. */
class LabelGuard<L extends string> {
  private readonly seen: Record<string, Set<string>> = {};

  constructor(private readonly spec: LabelSpec<L>) {
    for (const name of Object.keys(spec)) this.seen[name] = new Set(Array.isArray(spec[name as L]) ? spec[name as L] as string[] : []);
  }

  /** Widens fixed lists when another part defines the same series with more values (all-in-one). */
  widen(spec: LabelSpec<L>): void {
    for (const [name, values] of Object.entries<LabelValues>(spec)) {
      if (Array.isArray(values)) for (const v of values) this.seen[name]?.add(v);
    }
  }

  clean(labels: Labels<L>): Labels<L> {
    const out = {} as Labels<L>;
    for (const name of Object.keys(this.spec) as L[]) {
      const value = String(labels[name] ?? '');
      const allowed = this.spec[name];
      if (this.seen[name].has(value)) out[name] = value;
      else if (!Array.isArray(allowed) && (allowed as { matches(v: string): boolean }).matches(value)) {
        this.seen[name].add(value);
        out[name] = value;
      } else out[name] = OTHER;
    }
    return out;
  }
}

export interface CounterHandle<L extends string> { inc(labels: Labels<L>, by?: number): void }
export interface HistogramHandle<L extends string> { observe(labels: Labels<L>, seconds: number): void }
export interface GaugeHandle<L extends string> {
  /** Adds a reading taken at each scrape (a part's SQL count, a pool's sizes). */
  onCollect(read: (set: (labels: Labels<L>, value: number) => void) => Promise<void> | void): void;
}

/**
 * How often the event-loop lag histograms (nodejs_eventloop_lag_p99_seconds, ...) take a sample:
 * each sample is a timer that wakes the process. prom-client's 10 ms woke every part 100 times a
 * second whether or not it had work: an idle `npm start` process woke 134 times a second instead of
 * 41–52, and at half load the six processes' event loops woke 8 times per payment instead of 9.
 * At 100 ms a stall longer than 100 ms is always seen, a shorter one in proportion to its length
 * (decisions/2026-12-08-an-idle-part-sleeps.md).
 */
const EVENT_LOOP_SAMPLE_MS = 100;

export class Metrics {
  readonly registry = new Registry();
  private readonly guards = new Map<string, LabelGuard<string>>();
  private readonly readers = new Map<string, Array<Parameters<GaugeHandle<string>['onCollect']>[0]>>();

  constructor(opts: { defaults?: boolean } = {}) {
    if (opts.defaults !== false) collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  }

  private guard<L extends string>(name: string, labels: LabelSpec<L>): LabelGuard<L> {
    const existing = this.guards.get(name);
    if (existing) {
      existing.widen(labels);
      return existing as LabelGuard<L>;
    }
    const guard = new LabelGuard(labels);
    this.guards.set(name, guard as LabelGuard<string>);
    return guard;
  }

  counter<L extends string>(name: string, help: string, labels: LabelSpec<L>): CounterHandle<L> {
    const guard = this.guard(name, labels);
    const metric = (this.registry.getSingleMetric(name) as Counter<L> | undefined)
      ?? new Counter({ name, help, labelNames: Object.keys(labels) as L[], registers: [this.registry] });
    return { inc: (l, by = 1) => metric.inc(guard.clean(l) as never, by) };
  }

  histogram<L extends string>(name: string, help: string, labels: LabelSpec<L>, buckets = LATENCY_BUCKETS): HistogramHandle<L> {
    const guard = this.guard(name, labels);
    const metric = (this.registry.getSingleMetric(name) as Histogram<L> | undefined)
      ?? new Histogram({ name, help, labelNames: Object.keys(labels) as L[], buckets, registers: [this.registry] });
    return { observe: (l, seconds) => metric.observe(guard.clean(l) as never, seconds) };
  }

  gauge<L extends string>(name: string, help: string, labels: LabelSpec<L>): GaugeHandle<L> {
    const guard = this.guard(name, labels);
    if (!this.readers.has(name)) {
      const readers = this.readers;
      this.readers.set(name, []);
      new Gauge({
        name, help, labelNames: Object.keys(labels) as L[], registers: [this.registry],
        // Readings are taken on scrape: one cheap query per producing part, nothing in between.
        async collect() {
          this.reset();
          await Promise.all(readers.get(name)!.map((read) => Promise.resolve(read((l, v) => this.set(guard.clean(l) as never, v)))
            .catch(() => undefined)));
        },
      });
    }
    return { onCollect: (read) => this.readers.get(name)!.push(read as never) };
  }

  /** The text exposition Prometheus scrapes. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** Process-wide pieces every part has: its Postgres pool's connections. */
export function watchPool(metrics: Metrics, part: PartName, pool: Pool): void {
  const parts = ['gateway', 'payments', 'routing-risk', 'ledger', 'payouts', 'webhooks'];
  const gauge = metrics.gauge('svc_db_pool_connections', 'Postgres pool connections by state (total, idle, waiting clients)', {
    part: parts, state: ['total', 'idle', 'waiting'],
  });
  gauge.onCollect((set) => {
    set({ part, state: 'total' }, pool.totalCount);
    set({ part, state: 'idle' }, pool.idleCount);
    set({ part, state: 'waiting' }, pool.waitingCount);
  });
}

/** Seconds since `startedMs` (performance.now()), for histograms. */
export function secondsSince(startedMs: number): number {
  return (performance.now() - startedMs) / 1000;
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** `GET /metrics` on host:port (0 picks a free port), nothing else: a tiny server apart from the API's. */
export async function serveMetrics(metrics: Metrics, port: number, host: string): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.text().then(
      (body) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
