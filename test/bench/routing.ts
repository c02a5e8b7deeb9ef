// `npm run bench:routing`: replays a synthetic day (routing-scenario.ts) through the real planner
// (planRoute, rankPlan) and strategies, once per strategy, with the outcomes of each strategy's own
// choices fed back as the attempt.settled consumer feeds them (routing-outcome-memory.ts), failover
// on soft declines and technical failures as payments does. Prints acceptance, cost, exploration
// and the outage's detection and recovery next to the oracle and the issue's targets; never passes
// or fails on them. BENCH_PAYMENTS sets the day's payments (20,000).
import { feeFor } from '../../services/contract/index.js';
import { planRoute } from '../../services/routing-risk/route-planner.js';
import { rankPlan } from '../../services/routing-risk/ranked-route.js';
import type { RoutingRule } from '../../services/routing-risk/routing-rules.js';
import type { StrategyConfig } from '../../services/routing-risk/strategies/index.js';
import { OutcomeMemory } from './routing-outcome-memory.js';
import { ACCOUNTS, OUTAGE, SEGMENTS, bestAt, outcomeAt, syntheticDay, type SimPayment } from './routing-scenario.js';

const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 20_000);

interface Result {
  name: string;
  firstAttempt: number;
  final: number;
  feeBps: number;
  explored: number;
  detectedAfter?: number;
  backAfter?: number;
  p50Micros: number;
  p99Micros: number;
}

const rule = (strategy: StrategyConfig): RoutingRule => ({
  id: 'rtr_sim', name: 'sim', priority: 1, currencies: [], countries: [], methods: [], minAmount: null, maxAmount: null,
  // The merchant listed its incumbent first.
  providers: ['alpha', 'beta', 'gamma'], strategy, createdAt: new Date(0),
});

function replay(name: string, strategy: StrategyConfig, day: SimPayment[]): Result {
  const memory = new OutcomeMemory();
  const rules = [rule(strategy)];
  let first = 0, final = 0, fees = 0n, volume = 0n, explored = 0;
  let backAfter: number | undefined, hitDuringOutage = 0, afterOutage = 0;
  const micros: number[] = [];
  for (const p of day) {
    const s = p.segment;
    const req = { amount: p.amount, currency: s.currency, country: s.country, methodType: s.method };
    const history = memory.history(s, p.minute);
    const started = performance.now();
    const plan = rankPlan(planRoute(ACCOUNTS, req, rules), req, rules, {
      paymentId: p.id, history, nowMinute: p.minute, cardNetwork: s.cardNetwork,
    });
    micros.push((performance.now() - started) * 1000);
    if (plan.ranking.explored) explored += 1;
    {
      // Detection: the payments that still started at Alpha during its outage (probes and exploration
      // aside), so lost a first attempt to it. Back: over the payments Alpha should take (its best
      // segments at that minute), how many until one starts at Alpha again (not by exploration).
      const alphaBest = bestAt(s, p.minute) === 'alpha';
      const startsAtAlpha = plan.candidates[0]!.providerCode === 'alpha';
      if (p.minute >= OUTAGE.from && p.minute < OUTAGE.until && startsAtAlpha && !plan.ranking.explored) hitDuringOutage += 1;
      if (alphaBest && p.minute >= OUTAGE.until && backAfter === undefined) {
        afterOutage += 1;
        if (startsAtAlpha && !plan.ranking.explored) backAfter = afterOutage;
      }
    }
    for (const [i, account] of plan.candidates.entries()) {
      const outcome = outcomeAt(p, account);
      memory.record(account.providerAccountId, s, outcome, p.minute);
      if (outcome === 'succeeded') {
        if (i === 0) first += 1;
        final += 1;
        fees += feeFor(account, p.amount);
        volume += p.amount;
      }
      if (outcome === 'succeeded' || outcome === 'hard') break;
    }
  }
  micros.sort((a, b) => a - b);
  return {
    name, firstAttempt: first / day.length, final: final / day.length, feeBps: Number((fees * 1_000_000n) / volume) / 100,
    explored: explored / day.length, detectedAfter: hitDuringOutage, backAfter, p50Micros: micros[Math.floor(micros.length * 0.5)]!, p99Micros: micros[Math.floor(micros.length * 0.99)]!,
  };
}

/** The best account per segment in hindsight (most first-attempt approvals over the day), every payment sent there. */
function oracle(day: SimPayment[]): Result {
  let approved = 0, fees = 0n, volume = 0n;
  for (const segment of SEGMENTS) {
    const payments = day.filter((p) => p.segment === segment);
    const best = ACCOUNTS.map((a) => ({ a, won: payments.filter((p) => outcomeAt(p, a) === 'succeeded') }))
      .sort((x, y) => y.won.length - x.won.length)[0]!;
    approved += best.won.length;
    for (const p of best.won) { fees += feeFor(best.a, p.amount); volume += p.amount; }
  }
  return { name: 'oracle (best per segment in hindsight)', firstAttempt: approved / day.length, final: NaN, feeBps: Number((fees * 1_000_000n) / volume) / 100, explored: 0, p50Micros: NaN, p99Micros: NaN };
}

const pct = (x: number) => (Number.isNaN(x) ? '     -' : `${(x * 100).toFixed(2).padStart(6)}`);
const num = (x: number | undefined, w = 8) => (x === undefined ? 'never'.padStart(w) : String(x).padStart(w));

function main(): void {
  const day = syntheticDay(PAYMENTS);
  console.log(`routing simulator: ${day.length} card payments over a day, ${SEGMENTS.length} segments, accounts ${
    ACCOUNTS.map((a) => `${a.providerName} (${a.feeFixed} + ${a.feeBps} bps)`).join(', ')}; ${
    ACCOUNTS.find((a) => a.providerAccountId === OUTAGE.account)!.providerName} down ${OUTAGE.from / 60}:00 for ${OUTAGE.until - OUTAGE.from} min\n`);
  const results = [
    replay('priority (Alpha, Beta, Gamma)', { type: 'priority' }, day),
    replay('cheapest', { type: 'cheapest' }, day),
    replay('success rate', { type: 'success_rate' }, day),
    replay('elimination (rule order)', { type: 'elimination' }, day),
    replay('expected value', { type: 'expected_value' }, day),
  ];
  const best = oracle(day);
  console.log('strategy                                 1st-attempt %  after failover %  fees bps  vs oracle pts  explored %  outage hits  back after  plan p50/p99 µs');
  for (const r of [...results, best]) {
    console.log(`${r.name.padEnd(40)} ${pct(r.firstAttempt).padStart(13)}  ${pct(r.final).padStart(16)}  ${r.feeBps.toFixed(1).padStart(8)}  ${
      ((r.firstAttempt - best.firstAttempt) * 100).toFixed(2).padStart(13)}  ${pct(r.explored).padStart(10)}  ${
      r === best ? '          -' : num(r.detectedAfter, 11)}  ${r === best ? '         -' : num(r.backAfter, 10)}  ${Number.isNaN(r.p99Micros) ? '-' : `${r.p50Micros.toFixed(0)}/${r.p99Micros.toFixed(0)}`.padStart(15)}`);
  }
  const [, cheapest, sr, elim] = results as [Result, Result, Result, Result, Result];
  const check = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log('\ntargets (issue 26), printed, never asserted:');
  console.log(`  success rate within 1 point of the oracle: ${((sr.firstAttempt - best.firstAttempt) * 100).toFixed(2)} points: ${check(best.firstAttempt - sr.firstAttempt <= 0.01)}`);
  console.log(`  success rate at least 2 points above cheapest: +${((sr.firstAttempt - cheapest.firstAttempt) * 100).toFixed(2)} points: ${check(sr.firstAttempt - cheapest.firstAttempt >= 0.02)}`);
  for (const r of [sr, elim]) {
    console.log(`  ${r.name}: outage detected within 20 payments (first attempts sent to it while down): ${num(r.detectedAfter, 0)}: ${check((r.detectedAfter ?? Infinity) <= 20)}; `
      + `back within 50 of them after recovery: ${num(r.backAfter, 0)}: ${check((r.backAfter ?? Infinity) <= 50)}`);
  }
  console.log(`  exploration at most 5 % of traffic: success rate ${pct(sr.explored).trim()} % (exploration and probes): ${check(sr.explored <= 0.05)}`);
  console.log('\nAcceptance counts every payment (3 % are hard declines no route approves). Plan time is the planner and strategy in this'
    + ' process, without the planning read (the service measures both: svc_routing_plan_duration_seconds).');
}

main();
