import { differenceInterval, wilsonInterval, type Interval } from './acceptance-interval.js';
import type { Arm } from './ab-arms.js';
import type { RoutingRule } from './routing-rules.js';
import type { StrategyConfig } from './strategies/index.js';

/**
 * Per arm, a rule's payments decided since its experiment began ($1–$3 scope, $4 rule id, $5 since),
 * those with a succeeded attempt, and those whose first attempt succeeded: decisions × outcomes in
 * one statement. A payment planned twice counts once, in the arm of its first decision (its draw is
 * sticky, so the arm is the same anyway). Approved is the outcome classification of
 * count_outcome_minute (migration 0008): any settled attempt that did not fail. A payment whose
 * attempts have not been announced yet counts as not approved until they are (seconds).
 */
export const REPORT_SQL = `WITH decided AS (
    SELECT DISTINCT ON (payment_id) payment_id, arm FROM routing_decisions
    WHERE merchant_id = $1 AND project_id = $2 AND mode = $3 AND rule_id = $4 AND arm IS NOT NULL AND created_at >= $5
    ORDER BY payment_id, created_at
  ), paid AS (
    SELECT d.arm, bool_or(o.status <> 'failed') AS approved,
           (array_agg(o.status <> 'failed' ORDER BY o.settled_at, o.attempt_id))[1] AS first_approved
    FROM decided d LEFT JOIN attempt_outcomes o ON o.payment_id = d.payment_id AND o.project_id = $2 AND o.mode = $3
    GROUP BY d.payment_id, d.arm
  )
  SELECT arm, count(*)::int AS payments, count(*) FILTER (WHERE approved)::int AS approved,
         count(*) FILTER (WHERE first_approved)::int AS first_attempt_approved
  FROM paid GROUP BY arm`;

export interface ArmCounts {
  arm: Arm;
  payments: number;
  approved: number;
  firstAttemptApproved: number;
}

export interface ArmFigures extends ArmCounts {
  share: number;
  strategy: StrategyConfig;
  /** approved / payments and its Wilson interval; absent without payments. */
  acceptance?: number;
  interval?: Interval;
}

export interface ExperimentReport {
  arms: ArmFigures[];
  /** Variant acceptance minus control's, with Newcombe's interval; absent unless both arms have payments. */
  difference?: { estimate: number } & Interval;
}

/** The rule's arms (control always; the variant while it has one) with their figures. */
export function experimentReport(rule: RoutingRule, counts: ArmCounts[]): ExperimentReport {
  const countsOf = (arm: Arm) => counts.find((c) => c.arm === arm) ?? { arm, payments: 0, approved: 0, firstAttemptApproved: 0 };
  const figures = (c: ArmCounts, share: number, strategy: StrategyConfig): ArmFigures => ({
    ...c, share, strategy,
    ...(c.payments > 0 && { acceptance: c.approved / c.payments, interval: wilsonInterval(c.approved, c.payments) }),
  });
  const variantShare = rule.variant?.share ?? 0;
  const arms = [figures(countsOf('control'), 1 - variantShare, rule.strategy ?? { type: 'priority' })];
  if (rule.variant) arms.push(figures(countsOf('variant'), variantShare, rule.variant.strategy));
  const [control, variant] = arms;
  if (!variant || control!.payments === 0 || variant.payments === 0) return { arms };
  const d = differenceInterval(variant.approved, variant.payments, control!.approved, control!.payments);
  return { arms, difference: { estimate: d.difference, low: d.low, high: d.high } };
}
