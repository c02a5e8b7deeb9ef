import { rank, type Ranking, type SegmentHistory, type StrategyConfig } from './strategies/index.js';
import type { RoutePlan, RouteRequest } from './route-planner.js';
import type { RoutingRule } from './routing-rules.js';

/** What the learning strategies read for one payment, from the planning read (store.ts) or the simulator. */
export interface Learning {
  paymentId: string;
  history: SegmentHistory;
  /** Planning time in whole minutes since the epoch. */
  nowMinute: number;
  cardNetwork?: string;
}

export interface RankedPlan extends RoutePlan {
  ranking: Ranking;
}

const NO_HISTORY: SegmentHistory = new Map();

/** The deciding rule's strategy; the default rule orders cheapest first, as it always has. */
function strategyOf(plan: RoutePlan, rules: RoutingRule[]): StrategyConfig {
  if (plan.ruleId === undefined) return { type: 'cheapest' };
  return rules.find((r) => r.id === plan.ruleId)?.strategy ?? { type: 'priority' };
}

/**
 * Orders a plan's candidates by its deciding rule's strategy (planRoute picked the rule and the
 * eligible accounts in its static order). Nothing is added or removed: the strategies reorder.
 */
export function rankPlan(plan: RoutePlan, req: RouteRequest, rules: RoutingRule[], learning?: Learning): RankedPlan {
  const ranking = rank(strategyOf(plan, rules), {
    candidates: plan.candidates,
    amount: req.amount,
    paymentId: learning?.paymentId ?? '',
    segment: { method: req.methodType, currency: req.currency, country: req.country, cardNetwork: learning?.cardNetwork },
    history: learning?.history ?? NO_HISTORY,
    nowMinute: learning?.nowMinute ?? 0,
  });
  return { ...plan, candidates: ranking.ranked.map((c) => c.account), ranking };
}
