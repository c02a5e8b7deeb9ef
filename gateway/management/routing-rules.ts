import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { RoutingRule } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { invalidField } from '../../services/contract/index.js';
import type { Mode } from '../store/index.js';
import { audit, projectScope, type ManageDeps, type ManageHandlers } from './context.js';

// Named routing rules of a project and mode, kept by routing-risk and managed here over gRPC:
//   POST   /manage/v1/projects/:id/routing-rules              {mode, name, priority, providers, ...}
//   GET    /manage/v1/projects/:id/routing-rules?mode=M        lowest priority number first
//   DELETE /manage/v1/projects/:id/routing-rules/:rule?mode=M
// The rule's mode is explicit like an API key's: test and live traffic are routed separately.

interface RuleBody {
  mode: Mode;
  name: string;
  priority: unknown;
  currencies?: string[];
  countries?: string[];
  payment_method_types?: string[];
  min_amount?: unknown;
  max_amount?: unknown;
  providers: string[];
  /** {type, weights | settings} (docs/routing.md); absent or null: priority. */
  strategy?: unknown;
}


// Whole numbers are checked here rather than by type in the schema, so "5" or 1.5 is refused by
// name instead of coerced, and amounts stay exact on their way to int64.
export function wholeNumber(value: unknown, param: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalidField(param, `${param} must be a whole number`);
  return value;
}

function bound(value: unknown, param: string): bigint | undefined {
  return value === undefined || value === null ? undefined : BigInt(wholeNumber(value, param));
}

export function ruleJson(rule: RoutingRule, projectId: string, mode: string) {
  return {
    id: rule.id,
    object: 'routing_rule',
    project_id: projectId,
    mode,
    name: rule.name,
    priority: rule.priority,
    currencies: rule.currencies,
    countries: rule.countries,
    payment_method_types: rule.paymentMethodTypes,
    min_amount: rule.minAmount === undefined ? null : Number(rule.minAmount),
    max_amount: rule.maxAmount === undefined ? null : Number(rule.maxAmount),
    providers: rule.providers,
    strategy: rule.strategy === undefined ? null : JSON.parse(rule.strategy),
    created_at: rule.createdAt ? timestampDate(rule.createdAt).toISOString() : null,
  };
}

export function routingRuleHandlers(deps: ManageDeps): ManageHandlers {
  const { store, clients: { routing } } = deps;
  type Json = ReturnType<typeof ruleJson>;
  const recorded = (action: string, scope: { merchantId: string; projectId: string }, rule: Json) =>
    audit(deps, action, { merchantId: scope.merchantId, projectId: scope.projectId, targetId: rule.id, data: rule });

  return {
    async createRoutingRule(request) {
      const b = request.body as RuleBody;
      const scope = await projectScope(store, (request.params as { id: string }).id, b.mode);
      const { rule } = await routing.createRoutingRule({
        scope,
        rule: {
          name: b.name,
          priority: wholeNumber(b.priority, 'priority'),
          currencies: (b.currencies ?? []).map((c) => c.toUpperCase()),
          countries: (b.countries ?? []).map((c) => c.toUpperCase()),
          paymentMethodTypes: b.payment_method_types ?? [],
          minAmount: bound(b.min_amount, 'min_amount'),
          maxAmount: bound(b.max_amount, 'max_amount'),
          providers: b.providers,
          strategy: b.strategy === undefined || b.strategy === null ? undefined : JSON.stringify(b.strategy),
        },
      });
      const json = ruleJson(rule!, scope.projectId, scope.mode);
      await recorded('routing_rule.created', scope, json);
      return json;
    },

    async listRoutingRules(request) {
      const scope = await projectScope(store, (request.params as { id: string }).id, (request.query as { mode: Mode }).mode);
      const { rules } = await routing.listRoutingRules({ scope });
      return { data: rules.map((r) => ruleJson(r, scope.projectId, scope.mode)) };
    },

    async deleteRoutingRule(request) {
      const params = request.params as { id: string; rule: string };
      const scope = await projectScope(store, params.id, (request.query as { mode: Mode }).mode);
      const { rule } = await routing.deleteRoutingRule({ scope, id: params.rule });
      const json = ruleJson(rule!, scope.projectId, scope.mode);
      await recorded('routing_rule.deleted', scope, json);
      return json;
    },
  };
}
