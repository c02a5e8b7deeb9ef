import { int, type Env } from './parse.js';

// The routing-risk part's settings.

export interface RoutingRiskSettings {
  /** How long routing-risk's outcome writer waits for more attempt outcomes before writing a lone one. */
  routingOutcomeWaitMs: number;
  /**
   * For tests only (ROUTING_DECISION_WRITE_TEST_DELAY_MS, 0 by default): how long routing-risk holds
   * each batch of decisions before writing it, so a test can kill the part between answer and write.
   */
  routingDecisionWriteTestDelayMs: number;
}

export function routingRiskSettings(env: Env): RoutingRiskSettings {
  return {
    routingOutcomeWaitMs: int(env, 'ROUTING_OUTCOME_WAIT_MS'),
    routingDecisionWriteTestDelayMs: int(env, 'ROUTING_DECISION_WRITE_TEST_DELAY_MS'),
  };
}
