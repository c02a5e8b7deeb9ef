import { int, type Env } from './parse.js';

// The routing-risk part's settings.

export interface RoutingRiskSettings {
  /** How long routing-risk's outcome writer waits for more attempt outcomes before writing a lone one. */
  routingOutcomeWaitMs: number;
}

export function routingRiskSettings(env: Env): RoutingRiskSettings {
  return {
    routingOutcomeWaitMs: int(env, 'ROUTING_OUTCOME_WAIT_MS'),
  };
}
