import { feeFor } from '../../contract/index.js';
import { rankPlan } from '../ranked-route.js';
import { planRoute } from '../route-planner.js';
import type { RoutingRule } from '../routing-rules.js';
import type { StrategyConfig } from '../strategies/index.js';
import { OutcomeMemory } from './outcome-memory.js';
import { ACCOUNTS, OUTAGE, SEGMENTS, bestAt, outcomeAt, type SimPayment } from './scenario.js';

// One strategy over the synthetic day through the real planner (planRoute, rankPlan) and
// strategies, with the outcomes of its own choices fed back as the attempt.settled consumer feeds
// them (outcome-memory.ts), and failover on soft declines and technical failures as payments does.

export interface SimResult {
  name: string;
  /** Shares of all payments, 0 to 1. */
  firstAttempt: number;
  /** NaN for the oracle, which has no failover. */
  final: number;
  feeBps: number;
  explored: number;
  /** Payments that still started at the down account during its outage (not by exploration). */
  detectedAfter?: number;
  /**
   * Time to leave: of the payments its best segments sent while it was down, the number up to the
   * last one that still started there (not a probe); 0 when none did.
   */
  leaveAfter?: number;
  /** After the outage, payments its best segments sent elsewhere before one started there again. */
  backAfter?: number;
  /** Planning time in this process (planner and strategy, no planning read); NaN for the oracle. */
  p50Micros: number;
  p99Micros: number;
}

const rule = (strategy: StrategyConfig): RoutingRule => ({
  id: 'rtr_sim', name: 'sim', priority: 1, currencies: [], countries: [], methods: [], minAmount: null, maxAmount: null,
  // The merchant listed its incumbent first.
  providers: ['alpha', 'beta', 'gamma'], strategy, createdAt: new Date(0),
});

const ACCOUNT_IDS = ACCOUNTS.map((a) => a.providerAccountId);

const feeBpsOf = (fees: bigint, volume: bigint) => (volume === 0n ? 0 : Number((fees * 1_000_000n) / volume) / 100);

export function replay(name: string, strategy: StrategyConfig, day: SimPayment[]): SimResult {
  const memory = new OutcomeMemory();
  const rules = [rule(strategy)];
  let first = 0, final = 0, fees = 0n, volume = 0n, explored = 0;
  let backAfter: number | undefined, hitDuringOutage = 0, afterOutage = 0, duringOutage = 0, leaveAfter = 0;
  const micros: number[] = [];
  for (const p of day) {
    const s = p.segment;
    const req = { amount: p.amount, currency: s.currency, country: s.country, methodType: s.method };
    const history = memory.history(s, p.minute);
    const health = memory.health(s, ACCOUNT_IDS, p.second);
    const started = performance.now();
    const plan = rankPlan(planRoute(ACCOUNTS, req, rules), req, rules, {
      paymentId: p.id, history, health, nowMinute: p.minute, cardNetwork: s.cardNetwork,
    });
    micros.push((performance.now() - started) * 1000);
    if (plan.ranking.explored) explored += 1;
    {
      // Detection: the payments that still started at Alpha during its outage (probes and exploration
      // aside), so lost a first attempt to it. Back: over the payments Alpha should take (its best
      // segments at that minute), how many until one starts at Alpha again (not by exploration).
      const alphaBest = bestAt(s, p.minute) === 'alpha';
      const startsAtAlpha = plan.candidates[0]!.providerCode === 'alpha';
      const down = p.second >= OUTAGE.from && p.second < OUTAGE.until;
      if (down && startsAtAlpha && !plan.ranking.explored) hitDuringOutage += 1;
      if (down && alphaBest) {
        duringOutage += 1;
        if (startsAtAlpha && !plan.ranking.explored) leaveAfter = duringOutage;
      }
      if (alphaBest && p.second >= OUTAGE.until && backAfter === undefined) {
        afterOutage += 1;
        if (startsAtAlpha && !plan.ranking.explored) backAfter = afterOutage;
      }
    }
    for (const [i, account] of plan.candidates.entries()) {
      const outcome = outcomeAt(p, account);
      memory.record(account.providerAccountId, s, outcome, p.second);
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
    name, firstAttempt: first / day.length, final: final / day.length, feeBps: feeBpsOf(fees, volume),
    explored: explored / day.length, detectedAfter: hitDuringOutage, leaveAfter, backAfter,
    p50Micros: micros[Math.floor(micros.length * 0.5)]!, p99Micros: micros[Math.floor(micros.length * 0.99)]!,
  };
}

/** The best account per segment in hindsight (most first-attempt approvals over the day), every payment sent there. */
export function oracle(day: SimPayment[]): SimResult {
  let approved = 0, fees = 0n, volume = 0n;
  for (const segment of SEGMENTS) {
    const payments = day.filter((p) => p.segment === segment);
    const best = ACCOUNTS.map((a) => ({ a, won: payments.filter((p) => outcomeAt(p, a) === 'succeeded') }))
      .sort((x, y) => y.won.length - x.won.length)[0]!;
    approved += best.won.length;
    for (const p of best.won) { fees += feeFor(best.a, p.amount); volume += p.amount; }
  }
  return {
    name: 'oracle (best per segment in hindsight)', firstAttempt: approved / day.length, final: NaN, feeBps: feeBpsOf(fees, volume),
    explored: 0, p50Micros: NaN, p99Micros: NaN,
  };
}
