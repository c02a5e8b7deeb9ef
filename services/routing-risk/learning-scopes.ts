import { LEARNING_STRATEGY_TYPES } from '../contract/enums.js';
import type { RoutingRule } from './routing-rules.js';

// Which scopes learn: those with a routing rule whose strategy reads outcome history. The planning
// read (store.ts) reads minutes only for them and the outcome writer (outcome-store.ts) counts
// minutes only for them, both through scopeLearnsSql, so a scope's minutes are written exactly
// when something can read them. ruleLearns says the same of a rule in memory (a cached scope's).

/** Strategies that read outcome history (strategies/). */
export const LEARNING_STRATEGIES = LEARNING_STRATEGY_TYPES;

/**
 * SQL condition: the scope named by three SQL expressions (merchant, project, mode) has a rule that
 * learns, by its own strategy or its A/B variant's (ab-arms.ts).
 */
export function scopeLearnsSql(merchant: string, project: string, mode: string): string {
  return `EXISTS (SELECT 1 FROM routing_rules WHERE merchant_id = ${merchant} AND project_id = ${project} AND mode = ${mode}
    AND (strategy->>'type' = ANY('{${LEARNING_STRATEGIES.join(',')}}')
      OR variant->'strategy'->>'type' = ANY('{${LEARNING_STRATEGIES.join(',')}}')))`;
}

/** Whether the rule reads outcome history, as scopeLearnsSql tells it in SQL. */
export function ruleLearns(rule: RoutingRule): boolean {
  const learning: readonly string[] = LEARNING_STRATEGIES;
  return learning.includes(rule.strategy?.type ?? '') || learning.includes(rule.variant?.strategy.type ?? '');
}
