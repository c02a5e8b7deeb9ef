import type { Result } from './load.js';
import { TARGET_RATIO } from './cpu-budget.js';

// The targets, each against the same run's baseline (the mean of the two baselines around
// the loads): rates as a ratio to the baseline's rate at the same client count, latencies in ms
// and as a multiple of the baseline's own one-client p50 or p99. Printed, never judged by exit code.

const KEYED_RATIO = 0.07;
const P50_MS = { six: 9, allInOne: 6 };
const P99_MS = 40;
/** Write system calls of all the part processes for one payment alone. */
const WRITES_PER_PAYMENT = 14;
const WEBHOOKS_PER_SECOND = 5000;

export interface Baseline {
  /** Closed loop at the six processes' and at the all-in-one's client counts. */
  closed: Result;
  closedAllInOne: Result;
  /** One client at a time. */
  single: Result;
}

/** One deployment's loads (payments.ts). */
export interface ModeFigures {
  closed: Result;
  withKeys: Result;
  atHalf: Result;
  single: Result;
}

export interface TargetFigures {
  baselines: Baseline[];
  clients: { six: number; allInOne: number };
  six: ModeFigures;
  allInOne: ModeFigures;
  /** Deliveries/s of the burst to 4 endpoints; undefined when it could not run. */
  webhooks?: number;
  /** Socket writes per sequential payment, all part processes; undefined when not counted. */
  writes?: number;
}

const mean = (bs: Baseline[], pick: (b: Baseline) => number) => bs.reduce((s, b) => s + pick(b), 0) / bs.length;

/** The baseline rate the CPU budget and the six processes' ratios are taken against. */
export function baselineRate(bs: Baseline[]): number {
  return mean(bs, (b) => b.closed.perSecond);
}

export function printTargets(f: TargetFigures): void {
  const base = baselineRate(f.baselines);
  const baseAio = mean(f.baselines, (b) => b.closedAllInOne.perSecond);
  const p50 = mean(f.baselines, (b) => b.single.p50);
  const p99 = mean(f.baselines, (b) => b.single.p99);
  const met = (ok: boolean) => (ok ? 'met' : '**not met**');
  const rows: string[] = [];
  const rate = (label: string, r: Result, d: number, target: number) =>
    rows.push(`| ${label} | ${r.perSecond.toFixed(0)}/s | ${(r.perSecond / d).toFixed(3)} | ≥ ${target} × | ${met(r.perSecond / d >= target)} |`);
  const latency = (label: string, ms: number, d: number, kind: string, target: number) =>
    rows.push(`| ${label} | ${ms.toFixed(1)} ms | ${(ms / d).toFixed(1)} × baseline ${kind} | ≤ ${target} ms | ${met(ms <= target)} |`);
  const { six: s, allInOne: a } = f;
  rate(`six processes, ${f.clients.six} clients`, s.closed, base, TARGET_RATIO);
  rate(`all-in-one, ${f.clients.allInOne} clients`, a.closed, baseAio, TARGET_RATIO);
  rate(`Idempotency-Key, six processes, ${f.clients.six} clients`, s.withKeys, base, KEYED_RATIO);
  rate(`Idempotency-Key, all-in-one, ${f.clients.allInOne} clients`, a.withKeys, baseAio, KEYED_RATIO);
  latency('one client, p50, six processes', s.single.p50, p50, 'p50', P50_MS.six);
  latency('one client, p50, all-in-one', a.single.p50, p50, 'p50', P50_MS.allInOne);
  latency(`p99 at half the closed loop (${s.atHalf.perSecond.toFixed(0)}/s), six processes`, s.atHalf.p99, p99, 'p99', P99_MS);
  latency(`p99 at half the closed loop (${a.atHalf.perSecond.toFixed(0)}/s), all-in-one`, a.atHalf.p99, p99, 'p99', P99_MS);
  rows.push(f.writes === undefined
    ? `| socket writes per lone payment, six processes | not counted | | ≤ ${WRITES_PER_PAYMENT} | — |`
    : `| socket writes per lone payment, six processes | ${f.writes.toFixed(1)} | | ≤ ${WRITES_PER_PAYMENT} | ${met(f.writes <= WRITES_PER_PAYMENT)} |`);
  rows.push(f.webhooks === undefined
    ? `| webhooks, burst to 4 endpoints | not measured | | ≥ ${WEBHOOKS_PER_SECOND}/s | — |`
    : `| webhooks, burst to 4 endpoints | ${f.webhooks.toFixed(0)} deliveries/s | ${(f.webhooks / base).toFixed(3)} | ≥ ${WEBHOOKS_PER_SECOND}/s | ${met(f.webhooks >= WEBHOOKS_PER_SECOND)} |`);
  console.log(`
Targets, against this run's baseline: ${base.toFixed(0)}/s at ${f.clients.six} clients, ${baseAio.toFixed(0)}/s at ${f.clients.allInOne} clients, one client p50 ${p50.toFixed(2)} ms / p99 ${p99.toFixed(2)} ms (mean of ${f.baselines.length})
| target | measured | ÷ baseline | target | met? |
|---|---|---|---|---|
${rows.join('\n')}`);
}
