import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { GetRoutingRuleReportResponse, RoutingRule } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { invalidField, minorFromJson, minorToJson } from '../../services/contract/index.js';
import type { Mode } from '../store/index.js';
import { audit, projectScope, type ManageDeps, type ManageHandlers } from './context.js';

// Named routing rules of a project and mode, kept by routing-risk and managed here over gRPC:
//   POST   /manage/v1/projects/:id/routing-rules              {mode, name, priority, providers, ...}
//   GET    /manage/v1/projects/:id/routing-rules?mode=M        lowest priority number first
//   DELETE /manage/v1/projects/:id/routing-rules/:rule?mode=M
//   PATCH  /manage/v1/projects/:id/routing-rules/:rule?mode=M  {strategy?, variant?, priority?, providers?,
//          currencies?, countries?, payment_method_types?, min_amount?, max_amount?}
//   GET    /manage/v1/projects/:id/routing-rules/:rule/report?mode=M   acceptance per A/B arm
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
  /** {share, strategy}: an A/B arm (docs/routing.md); absent or null: none. */
  variant?: unknown;
}

type RuleUpdate = Partial<Omit<RuleBody, 'mode' | 'name'>>;

/**
 * A strategy or variant as routing-risk takes it: JSON text, or absent. In an update, absent keeps
 * the rule's and null ("null") removes it; in a new rule, null is the same as absent.
 */
const jsonText = (value: unknown, nullRemoves: boolean): string | undefined =>
  value === undefined || (value === null && !nullRemoves) ? undefined : JSON.stringify(value);


// Whole numbers are checked here rather than by type in the schema, so "5" or 1.5 is refused by
// name instead of coerced, and amounts stay exact on their way to int64.
export function wholeNumber(value: unknown, param: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalidField(param, `${param} must be a whole number`);
  return value;
}

/** Currency and country codes as routing-risk compares them. */
const upper = (codes: string[] | undefined) => (codes ?? []).map((c) => c.toUpperCase());

function bound(value: unknown, param: string): bigint | undefined {
  return value === undefined || value === null ? undefined : minorFromJson(wholeNumber(value, param));
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
    min_amount: rule.minAmount === undefined ? null : minorToJson(rule.minAmount),
    max_amount: rule.maxAmount === undefined ? null : minorToJson(rule.maxAmount),
    providers: rule.providers,
    strategy: rule.strategy === undefined ? null : JSON.parse(rule.strategy),
    variant: rule.variant === undefined ? null : JSON.parse(rule.variant),
    experiment_since: rule.experimentSince ? timestampDate(rule.experimentSince).toISOString() : null,
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
          currencies: upper(b.currencies),
          countries: upper(b.countries),
          paymentMethodTypes: b.payment_method_types ?? [],
          minAmount: bound(b.min_amount, 'min_amount'),
          maxAmount: bound(b.max_amount, 'max_amount'),
          providers: b.providers,
          strategy: jsonText(b.strategy, false),
          variant: jsonText(b.variant, false),
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

    async updateRoutingRule(request) {
      const params = request.params as { id: string; rule: string };
      const b = request.body as RuleUpdate;
      const scope = await projectScope(store, params.id, (request.query as { mode: Mode }).mode);
      const { rule, changed } = await routing.updateRoutingRule({
        scope,
        id: params.rule,
        priority: b.priority === undefined ? undefined : wholeNumber(b.priority, 'priority'),
        setProviders: b.providers !== undefined,
        providers: b.providers ?? [],
        strategy: jsonText(b.strategy, true),
        variant: jsonText(b.variant, true),
        setCurrencies: b.currencies !== undefined,
        currencies: upper(b.currencies),
        setCountries: b.countries !== undefined,
        countries: upper(b.countries),
        setPaymentMethodTypes: b.payment_method_types !== undefined,
        paymentMethodTypes: b.payment_method_types ?? [],
        setMinAmount: b.min_amount !== undefined,
        minAmount: bound(b.min_amount, 'min_amount'),
        setMaxAmount: b.max_amount !== undefined,
        maxAmount: bound(b.max_amount, 'max_amount'),
      });
      const json = ruleJson(rule!, scope.projectId, scope.mode);
      // Named field by field, so the log says what the change was, not only that there was one.
      await audit(deps, 'routing_rule.updated', {
        merchantId: scope.merchantId, projectId: scope.projectId, targetId: json.id, data: { changed, rule: json },
      });
      return json;
    },

    async getRoutingRuleReport(request) {
      const params = request.params as { id: string; rule: string };
      const scope = await projectScope(store, params.id, (request.query as { mode: Mode }).mode);
      return reportJson(await routing.getRoutingRuleReport({ scope, id: params.rule }), scope.projectId, scope.mode);
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

const interval = (i: { low: number; high: number } | undefined) => (i ? { low: i.low, high: i.high } : null);

function reportJson(report: GetRoutingRuleReportResponse, projectId: string, mode: string) {
  const rule = ruleJson(report.rule!, projectId, mode);
  return {
    object: 'routing_rule_report',
    rule,
    since: rule.experiment_since,
    arms: report.arms.map((a) => ({
      arm: a.arm,
      share: a.share,
      strategy: JSON.parse(a.strategy),
      payments: Number(a.payments),
      approved: Number(a.approved),
      first_attempt_approved: Number(a.firstAttemptApproved),
      first_attempt_acceptance: a.firstAttemptAcceptance ?? null,
      first_attempt_interval: interval(a.firstAttemptInterval),
      acceptance: a.acceptance ?? null,
      interval: interval(a.interval),
      failover: {
        extra_attempts_per_payment: a.extraAttemptsPerPayment ?? null,
        fee_bps: a.feeBps ?? null,
        latency_ms_per_payment: a.latencyMsPerPayment ?? null,
      },
    })),
    first_attempt_difference: report.firstAttemptDifference === undefined ? null
      : { estimate: report.firstAttemptDifference, ...interval(report.firstAttemptDifferenceInterval) },
    difference: report.difference === undefined ? null : { estimate: report.difference, ...interval(report.differenceInterval) },
  };
}
