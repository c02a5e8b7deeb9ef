import { stickyShare } from '../platform/sticky-share.js';
import { strategyProblem, type StrategyConfig } from './strategies/index.js';

/** A rule's variant arm: `share` of its payments (sticky by payment id) are ranked by `strategy` instead. */
export interface Variant {
  share: number;
  strategy: StrategyConfig;
}

export type Arm = 'control' | 'variant';

/**
 * At least 1 %, so an experiment can gather a sample at all; at most half, so the rule's own
 * strategy (the one the merchant chose and keeps) always carries most of the traffic.
 */
export const VARIANT_SHARE = { min: 0.01, max: 0.5 } as const;

/**
 * The first problem with a rule's variant as `[param, message]`, or undefined. Its strategy is
 * checked like the rule's own (the same providers), its params named under `variant.strategy`.
 */
export function variantProblem(variant: unknown, providers: string[]): [string, string] | undefined {
  if (typeof variant !== 'object' || variant === null || Array.isArray(variant)) {
    return ['variant', 'variant must be an object with share and strategy'];
  }
  const v = variant as Record<string, unknown>;
  const extra = Object.keys(v).find((k) => k !== 'share' && k !== 'strategy');
  if (extra) return [`variant.${extra}`, `variant takes share and strategy only, not "${extra}"`];
  if (typeof v.share !== 'number' || !Number.isFinite(v.share) || v.share < VARIANT_SHARE.min || v.share > VARIANT_SHARE.max) {
    return ['variant.share', `variant.share must be a number from ${VARIANT_SHARE.min} to ${VARIANT_SHARE.max}`];
  }
  if (v.strategy === undefined) return ['variant.strategy', 'variant.strategy is required'];
  const problem = strategyProblem(v.strategy, providers);
  return problem && [`variant.${problem[0]}`, `variant.${problem[1]}`];
}

/**
 * The payment's arm of a rule's experiment, from its own sticky draw (a purpose of its own, so it
 * is independent of the exploration, probe and split draws): a payment planned again stays in its arm.
 */
export function armOf(variant: Variant | null | undefined, paymentId: string): Arm {
  return variant && stickyShare(paymentId, 'ab-arm') < variant.share ? 'variant' : 'control';
}
