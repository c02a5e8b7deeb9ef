import { oracle, replay, type SimResult } from './replay.js';
import { ACCOUNTS, OUTAGE, SEGMENTS, syntheticDay } from './scenario.js';

// The simulator's run and its table: every strategy over the same seeded day, next to the oracle
// and the issue's targets, printed and never asserted (a benchmark, not a test).

export interface SimulationOptions {
  /** Payments in the day (20,000 by default). */
  payments?: number;
  /** The day's seed: the same seed replays the same day. */
  seed?: number;
}

export interface Simulation {
  payments: number;
  seed: number;
  /** priority, cheapest, success rate, elimination, expected value: in this order. */
  results: SimResult[];
  oracle: SimResult;
}

export const DEFAULT_PAYMENTS = 20_000;
const DEFAULT_SEED = 26;

export function simulateRouting(options: SimulationOptions = {}): Simulation {
  const payments = options.payments ?? DEFAULT_PAYMENTS;
  const seed = options.seed ?? DEFAULT_SEED;
  const day = syntheticDay(payments, seed);
  return {
    payments,
    seed,
    results: [
      replay('priority (Alpha, Beta, Gamma)', { type: 'priority' }, day),
      replay('cheapest', { type: 'cheapest' }, day),
      replay('success rate', { type: 'success_rate' }, day),
      replay('elimination (rule order)', { type: 'elimination' }, day),
      replay('expected value', { type: 'expected_value' }, day),
    ],
    oracle: oracle(day),
  };
}

const clockOf = (second: number) => [second / 3600, (second / 60) % 60, second % 60].map((x) => String(Math.floor(x)).padStart(2, '0')).join(':');
const pct = (x: number) => (Number.isNaN(x) ? '     -' : `${(x * 100).toFixed(2).padStart(6)}`);
const num = (x: number | undefined, w = 8) => (x === undefined ? 'never'.padStart(w) : String(x).padStart(w));

const TABLE_HEADER =
  'strategy                                 1st-attempt %  after failover %  fees bps  vs oracle pts  explored %  outage hits  left after  back after  plan p50/p99 µs';

/** The simulation as a person reads it: the scenario, one row per strategy and the oracle, the targets. */
export function simulationReport(sim: Simulation): string[] {
  const best = sim.oracle;
  const lines = [
    `routing simulator: ${sim.payments} card payments over a day (seed ${sim.seed}), ${SEGMENTS.length} segments, accounts ${
      ACCOUNTS.map((a) => `${a.providerName} (${a.feeFixed} + ${a.feeBps} bps)`).join(', ')}; ${
      ACCOUNTS.find((a) => a.providerAccountId === OUTAGE.account)!.providerName} down at ${clockOf(OUTAGE.from)} for ${(OUTAGE.until - OUTAGE.from) / 60} min`,
    '',
    TABLE_HEADER,
  ];
  for (const r of [...sim.results, best]) {
    lines.push(`${r.name.padEnd(40)} ${pct(r.firstAttempt).padStart(13)}  ${pct(r.final).padStart(16)}  ${r.feeBps.toFixed(1).padStart(8)}  ${
      ((r.firstAttempt - best.firstAttempt) * 100).toFixed(2).padStart(13)}  ${pct(r.explored).padStart(10)}  ${
      r === best ? '          -' : num(r.detectedAfter, 11)}  ${r === best ? '         -' : num(r.leaveAfter, 10)}  ${
      r === best ? '         -' : num(r.backAfter, 10)}  ${
      Number.isNaN(r.p99Micros) ? '-' : `${r.p50Micros.toFixed(0)}/${r.p99Micros.toFixed(0)}`.padStart(15)}`);
  }
  const [, cheapest, sr, elim] = sim.results as [SimResult, SimResult, SimResult, SimResult, SimResult];
  const check = (ok: boolean) => (ok ? 'met' : 'NOT met');
  lines.push('', 'routing targets, printed, never asserted:',
    `  success rate within 1 point of the oracle: ${((sr.firstAttempt - best.firstAttempt) * 100).toFixed(2)} points: ${check(best.firstAttempt - sr.firstAttempt <= 0.01)}`,
    `  success rate at least 2 points above cheapest: +${((sr.firstAttempt - cheapest.firstAttempt) * 100).toFixed(2)} points: ${check(sr.firstAttempt - cheapest.firstAttempt >= 0.02)}`);
  for (const r of [sr, elim]) {
    lines.push(`  ${r.name}: left within 20 of its segments' payments after the outage began: ${num(r.leaveAfter, 0)}: ${check((r.leaveAfter ?? Infinity) <= 20)}; `
      + `back within 60 of them after recovery: ${num(r.backAfter, 0)}: ${check((r.backAfter ?? Infinity) <= 60)}`);
  }
  lines.push(`  exploration at most 5 % of traffic: success rate ${pct(sr.explored).trim()} % (exploration and probes): ${check(sr.explored <= 0.05)}`,
    '', 'Acceptance counts every payment (3 % are hard declines no route approves). Plan time is the planner and strategy in this'
    + ' process, without the planning read (the service measures both: svc_routing_plan_duration_seconds).');
  return lines;
}
