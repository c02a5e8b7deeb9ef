import { rankByElimination } from './elimination.js';
import { rankByExpectedValue } from './expected-value.js';
import { rankByCost, rankByPriority } from './static-order.js';
import { settingsOf } from './strategy-config.js';
import { rankBySuccessRate } from './success-rate.js';
import { rankByVolumeSplit } from './volume-split.js';
import type { RankInput, Ranking, StrategyConfig } from './types.js';

/**
 * Orders a rule's candidates by its strategy. `input.candidates` come in the rule's static order
 * (its list, or cheapest first for the default rule), which the learning strategies fall back to
 * where they know nothing.
 */
export function rank(config: StrategyConfig, input: RankInput): Ranking {
  const base = rankByPriority(input);
  switch (config.type) {
    case 'priority': return base;
    case 'cheapest': return rankByCost(input);
    case 'volume_split': return rankByVolumeSplit(input, config.weights);
    case 'success_rate': return rankBySuccessRate(input, settingsOf(config), base);
    case 'elimination': return rankByElimination(input, settingsOf(config), base);
    case 'expected_value': return rankByExpectedValue(input, settingsOf(config), base);
  }
}
