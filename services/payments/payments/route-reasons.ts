import type { RoutingDecision } from '../../../proto/gen/svc/routing/v1/routing_pb.js';

/**
 * Why routing ordered the candidates as it did, as the `routing.decided` timeline entry
 * keeps it: the strategy, the reason in words, whether this payment explored, and each candidate's
 * score. It arrives in the plan answer payments already has, so telling it costs no read; a
 * routing-risk that sends no strategy (older than this) leaves the entry as it was.
 */
export function routeReasons(routing: RoutingDecision | undefined): Record<string, unknown> {
  if (!routing?.strategy) return {};
  return {
    strategy: routing.strategy,
    reason: routing.reason ?? '',
    explored: routing.explored,
    scores: routing.scores.map((c) => ({
      provider_account_id: c.providerAccountId,
      provider_code: c.providerCode,
      provider_name: c.providerName,
      score: c.score ?? null,
      sample: c.sample ?? null,
      note: c.note,
    })),
  };
}
