import type { ConnectRouter } from '@connectrpc/connect';
import { RiskService, type RiskInput } from '../../proto/gen/svc/risk/v1/risk_pb.js';
import { RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import { newId, serviceError, type Clock } from '../shared/index.js';
import { assessRisk } from './risk-rules.js';
import { planRoute } from './route-planner.js';
import type { RoutingRiskStore } from './store.js';

function requireScope(scope: Scope | undefined): Scope {
  if (!scope || !scope.merchantId || !scope.projectId || !['test', 'live'].includes(scope.mode)) {
    throw serviceError('validation_error', 'scope with merchant_id, project_id and mode is required', { param: 'scope' });
  }
  return scope;
}

function requireInput(input: RiskInput | undefined): RiskInput {
  if (!input || !input.paymentId || input.amount < 1n || input.currency.length !== 3 || !input.paymentMethodType) {
    throw serviceError('validation_error', 'input with payment_id, amount, currency and payment_method_type is required', {
      param: 'input',
    });
  }
  return input;
}

export function routes(store: RoutingRiskStore, clock: Clock) {
  return (router: ConnectRouter) => {
    router.service(RiskService, {
      async evaluateRisk(req) {
        const scope = requireScope(req.scope);
        const input = requireInput(req.input);
        const at = clock.now();
        const risk = { id: newId('rsk', at), ...assessRisk(input) };
        await store.recordDecisions(scope, input.paymentId, risk, undefined, at);
        return { decision: { decisionId: risk.id, score: risk.score, outcome: risk.outcome, reasons: risk.reasons } };
      },
    });

    router.service(RoutingService, {
      async planPayment(req) {
        const scope = requireScope(req.scope);
        const input = requireInput(req.input);
        const at = clock.now();
        const risk = { id: newId('rsk', at), ...assessRisk(input) };
        const plan =
          risk.outcome === 'block'
            ? undefined
            : {
                id: newId('rtd', at),
                ...planRoute(await store.accountsFor(scope), {
                  amount: input.amount,
                  currency: input.currency,
                  country: input.country,
                  methodType: input.paymentMethodType,
                }),
              };
        await store.recordDecisions(scope, input.paymentId, risk, plan, at);
        return {
          risk: { decisionId: risk.id, score: risk.score, outcome: risk.outcome, reasons: risk.reasons },
          routing: plan && {
            decisionId: plan.id,
            rule: plan.rule,
            candidates: plan.candidates.map((c) => ({
              providerId: c.providerId,
              providerCode: c.providerCode,
              providerName: c.providerName,
              providerAccountId: c.providerAccountId,
              feeFixed: c.feeFixed,
              feeBps: c.feeBps,
              latencyMs: c.latencyMs,
            })),
          },
        };
      },
    });
  };
}
