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
 * attempts have not been announced yet counts as not approved until they are (seconds). And what
 * failover cost: the attempts, the providers' latency summed over them, and the fees of approved
 * attempts (their account's fixed fee and rate on the attempt's amount, migration 0013) over the
 * amounts approved.
 */
export const REPORT_SQL = `WITH decided AS (
    SELECT DISTINCT ON (payment_id) payment_id, arm FROM routing_decisions
    WHERE merchant_id = $1 AND project_id = $2 AND mode = $3 AND rule_id = $4 AND arm IS NOT NULL AND created_at >= $5
    ORDER BY payment_id, created_at
  ), paid AS (
    SELECT d.arm, bool_or(o.status <> 'failed') AS approved,
           (array_agg(o.status <> 'failed' ORDER BY o.settled_at, o.attempt_id))[1] AS first_approved,
           count(o.attempt_id) AS attempts, coalesce(sum(o.latency_ms), 0) AS latency_ms,
           coalesce(sum(a.fee_fixed + o.amount * a.fee_bps / 10000.0) FILTER (WHERE o.status <> 'failed' AND o.amount IS NOT NULL), 0) AS fees,
           coalesce(sum(o.amount) FILTER (WHERE o.status <> 'failed'), 0) AS approved_amount
    FROM decided d LEFT JOIN attempt_outcomes o ON o.payment_id = d.payment_id AND o.project_id = $2 AND o.mode = $3
      LEFT JOIN provider_accounts a ON a.id = o.provider_account_id
    GROUP BY d.payment_id, d.arm
  )
  SELECT arm, count(*)::int AS payments, count(*) FILTER (WHERE approved)::int AS approved,
         count(*) FILTER (WHERE first_approved)::int AS first_attempt_approved,
         sum(attempts)::int AS attempts, sum(latency_ms)::float8 AS latency_ms, sum(fees)::float8 AS fees,
         sum(approved_amount)::float8 AS approved_amount
  FROM paid GROUP BY arm`;

export interface ArmCounts {
  arm: Arm;
  payments: number;
  approved: number;
  firstAttemptApproved: number;
  /** Attempts announced, their latency summed (ms), approved attempts' fees and amounts (minor units). */
  attempts: number;
  latencyMs: number;
  fees: number;
  approvedAmount: number;
}

export interface ArmFigures extends ArmCounts {
  share: number;
  strategy: StrategyConfig;
  /** approved / payments and its Wilson interval; absent without payments. */
  acceptance?: number;
  interval?: Interval;
  /** The headline: first-attempt approvals / payments and its Wilson interval; absent without payments. */
  firstAttemptAcceptance?: number;
  firstAttemptInterval?: Interval;
  /** Failover's cost: attempts beyond the first per payment, fees in bps of approved amounts, latency per payment. */
  extraAttemptsPerPayment?: number;
  feeBps?: number;
  latencyMsPerPayment?: number;
}

export interface ExperimentReport {
  arms: ArmFigures[];
  /** Variant acceptance minus control's, with Newcombe's interval; absent unless both arms have payments. */
  difference?: { estimate: number } & Interval;
  /** The same for first-attempt acceptance. */
  firstAttemptDifference?: { estimate: number } & Interval;
}

/** The rule's arms (control always; the variant while it has one) with their figures. */
export function experimentReport(rule: RoutingRule, counts: ArmCounts[]): ExperimentReport {
  const countsOf = (arm: Arm) => counts.find((c) => c.arm === arm)
    ?? { arm, payments: 0, approved: 0, firstAttemptApproved: 0, attempts: 0, latencyMs: 0, fees: 0, approvedAmount: 0 };
  const figures = (c: ArmCounts, share: number, strategy: StrategyConfig): ArmFigures => ({
    ...c, share, strategy,
    ...(c.payments > 0 && {
      acceptance: c.approved / c.payments, interval: wilsonInterval(c.approved, c.payments),
      firstAttemptAcceptance: c.firstAttemptApproved / c.payments, firstAttemptInterval: wilsonInterval(c.firstAttemptApproved, c.payments),
      extraAttemptsPerPayment: Math.max(0, c.attempts - c.payments) / c.payments,
      latencyMsPerPayment: c.latencyMs / c.payments,
    }),
    ...(c.approvedAmount > 0 && { feeBps: (c.fees / c.approvedAmount) * 10_000 }),
  });
  const variantShare = rule.variant?.share ?? 0;
  const arms = [figures(countsOf('control'), 1 - variantShare, rule.strategy ?? { type: 'priority' })];
  if (rule.variant) arms.push(figures(countsOf('variant'), variantShare, rule.variant.strategy));
  const [control, variant] = arms;
  if (!variant || control!.payments === 0 || variant.payments === 0) return { arms };
  const d = differenceInterval(variant.approved, variant.payments, control!.approved, control!.payments);
  const f = differenceInterval(variant.firstAttemptApproved, variant.payments, control!.firstAttemptApproved, control!.payments);
  return {
    arms,
    difference: { estimate: d.difference, low: d.low, high: d.high },
    firstAttemptDifference: { estimate: f.difference, low: f.low, high: f.high },
  };
}
