import { armOf, type Arm } from './ab-arms.js';
import { rank, type HealthHistory, type Ranking, type SegmentHistory, type StrategyConfig } from './strategies/index.js';
import type { RoutePlan, RouteRequest } from './route-planner.js';
import type { RoutingRule } from './routing-rules.js';

/** What the learning strategies read for one payment, from the planning read (store.ts) or the simulator. */
export interface Learning {
  paymentId: string;
  history: SegmentHistory;
  /** Each account's newest attempts (account-health.ts), read with the history. */
  health: HealthHistory;
  /** Accounts with a probe of this process in flight (probes-in-flight.ts). */
  probing?: ReadonlySet<string>;
  /** Planning time in whole minutes since the epoch. */
  nowMinute: number;
  cardNetwork?: string;
}

export interface RankedPlan extends RoutePlan {
  ranking: Ranking;
  /** The deciding rule's arm this payment was ranked by; absent for the built-in default rule. */
  arm?: Arm;
}

const NO_HISTORY: SegmentHistory = new Map();
const NO_HEALTH: HealthHistory = new Map();

/**
 * The deciding rule's strategy for this payment: its variant's when the payment's sticky draw falls
 * in the variant's share, the rule's own otherwise. The default rule orders cheapest first, as it
 * always has.
 */
function strategyOf(plan: RoutePlan, rules: RoutingRule[], paymentId: string): { strategy: StrategyConfig; arm?: Arm } {
  if (plan.ruleId === undefined) return { strategy: { type: 'cheapest' } };
  const rule = rules.find((r) => r.id === plan.ruleId);
  const arm = armOf(rule?.variant, paymentId);
  const strategy = arm === 'variant' ? rule!.variant!.strategy : rule?.strategy;
  return { strategy: strategy ?? { type: 'priority' }, arm };
}

/**
 * Orders a plan's candidates by its deciding rule's strategy (planRoute picked the rule and the
 * eligible accounts in its static order). Nothing is added or removed: the strategies reorder.
 */
export function rankPlan(plan: RoutePlan, req: RouteRequest, rules: RoutingRule[], learning?: Learning): RankedPlan {
  const paymentId = learning?.paymentId ?? '';
  const { strategy, arm } = strategyOf(plan, rules, paymentId);
  const ranking = rank(strategy, {
    candidates: plan.candidates,
    amount: req.amount,
    paymentId,
    segment: { method: req.methodType, currency: req.currency, country: req.country, cardNetwork: learning?.cardNetwork },
    history: learning?.history ?? NO_HISTORY,
    health: learning?.health ?? NO_HEALTH,
    probing: learning?.probing,
    nowMinute: learning?.nowMinute ?? 0,
  });
  return { ...plan, candidates: ranking.ranked.map((c) => c.account), ranking, ...(arm && { arm }) };
}
