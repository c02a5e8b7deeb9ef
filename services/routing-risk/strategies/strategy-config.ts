import { ROUTING_STRATEGY_TYPES } from '../../contract/enums.js';
import type { LearningSettings, StrategyConfig, StrategyType } from './types.js';

export const STRATEGY_TYPES: readonly StrategyType[] = ROUTING_STRATEGY_TYPES;

/**
 * Defaults a serious payments product would start from: an hour or the last 200 outcomes for the
 * rate (a day's drift shows within the hour, a busy segment adapts faster), 30 outcomes before a
 * rate is trusted (a 95 % interval of about ±8 points at 90 %), 4 % exploration (probes of an
 * eliminated account included), so the share drawn stays under the 5 % ceiling; elimination over 5 minutes or 20 attempts at 50 % technical failures with at least 5
 * seen, and 5 % probes.
 */
export const DEFAULT_SETTINGS: Readonly<LearningSettings> = Object.freeze({
  windowMinutes: 60,
  windowAttempts: 200,
  minSample: 30,
  explorationShare: 0.04,
  eliminationMinutes: 5,
  eliminationAttempts: 20,
  eliminationThreshold: 0.5,
  eliminationMinSample: 5,
  probeShare: 0.05,
});

export function settingsOf(config: StrategyConfig): LearningSettings {
  return 'settings' in config ? { ...DEFAULT_SETTINGS, ...config.settings } : { ...DEFAULT_SETTINGS };
}

/**
 * The longest window any strategy reads: how far back the planning read goes. Two hours of
 * five-minute buckets keeps that read small enough for the hot path; a quieter segment falls back to
 * its coarser segments instead of a longer window. (Elimination looks back up to six times its
 * window, so that one is capped at 20 minutes.)
 */
export const READ_WINDOW_MINUTES = 120;

type Range = [key: keyof LearningSettings, min: number, max: number, integer: boolean];
const RANGES: Range[] = [
  ['windowMinutes', 1, READ_WINDOW_MINUTES, true],
  ['windowAttempts', 1, 100_000, true],
  ['minSample', 1, 10_000, true],
  ['explorationShare', 0, 0.2, false],
  ['eliminationMinutes', 1, 20, true],
  ['eliminationAttempts', 1, 10_000, true],
  ['eliminationThreshold', 0.05, 1, false],
  ['eliminationMinSample', 1, 10_000, true],
  ['probeShare', 0, 0.2, false],
];

function settingsProblem(settings: unknown): [string, string] | undefined {
  if (settings === undefined) return undefined;
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
    return ['strategy.settings', 'strategy.settings must be an object'];
  }
  const known = new Set(RANGES.map(([k]) => k as string));
  const unknown = Object.keys(settings).find((k) => !known.has(k));
  if (unknown) return [`strategy.settings.${unknown}`, `strategy.settings has no setting "${unknown}"`];
  for (const [key, min, max, integer] of RANGES) {
    const v = (settings as Record<string, unknown>)[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
      return [`strategy.settings.${key}`, `strategy.settings.${key} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}`];
    }
  }
  const s = { ...DEFAULT_SETTINGS, ...(settings as Partial<LearningSettings>) };
  if (s.minSample > s.windowAttempts) {
    return ['strategy.settings.minSample', 'strategy.settings.minSample must not exceed windowAttempts (no rate would ever be trusted)'];
  }
  if (s.eliminationMinSample > s.eliminationAttempts) {
    return ['strategy.settings.eliminationMinSample', 'strategy.settings.eliminationMinSample must not exceed eliminationAttempts'];
  }
  return undefined;
}

function weightsProblem(weights: unknown, providers: string[]): [string, string] | undefined {
  const param = 'strategy.weights';
  if (typeof weights !== 'object' || weights === null || Array.isArray(weights)) return [param, `${param} must be an object of provider to weight`];
  const entries = Object.entries(weights as Record<string, unknown>);
  if (entries.length === 0) return [param, `${param} must weigh at least one provider`];
  const stranger = entries.find(([k]) => !providers.includes(k));
  if (stranger) return [param, `${param}: "${stranger[0]}" is not one of the rule's providers`];
  const bad = entries.find(([, w]) => typeof w !== 'number' || !Number.isInteger(w) || w < 0 || w > 100);
  if (bad) return [param, `${param}: "${bad[0]}" must weigh a whole number from 0 to 100`];
  const sum = entries.reduce((n, [, w]) => n + (w as number), 0);
  if (sum !== 100) return [param, `${param} must sum to 100 (they sum to ${sum})`];
  return undefined;
}

/**
 * The first problem with a rule's strategy as `[param, message]`, or undefined. `providers`: the
 * rule's provider entries, which a split's weights must name. Weights are percentages summing to
 * 100, so a merchant reads the split as it will run.
 */
export function strategyProblem(config: unknown, providers: string[]): [string, string] | undefined {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return ['strategy', 'strategy must be an object'];
  const c = config as Record<string, unknown>;
  if (typeof c.type !== 'string' || !STRATEGY_TYPES.includes(c.type as StrategyType)) {
    return ['strategy.type', `strategy.type must be one of ${STRATEGY_TYPES.join(', ')}`];
  }
  const allowed = c.type === 'volume_split' ? ['type', 'weights'] : c.type === 'priority' || c.type === 'cheapest' ? ['type'] : ['type', 'settings'];
  const extra = Object.keys(c).find((k) => !allowed.includes(k));
  if (extra) return [`strategy.${extra}`, `a ${c.type} strategy takes no "${extra}"`];
  if (c.type === 'volume_split') return weightsProblem(c.weights, providers);
  return settingsProblem(c.settings);
}
