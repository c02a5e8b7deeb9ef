import type { ConnectRouter } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { RiskInput } from '../../proto/gen/svc/risk/v1/risk_pb.js';
import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import {
  RoutingService, type RoutingRule as RuleMessage, type UpdateRoutingRuleRequest,
} from '../../proto/gen/svc/routing/v1/routing_pb.js';
import type { Clock } from '../platform/clock.js';
import { newId } from '../platform/ids.js';
import { secondsSince, type Metrics } from '../platform/metrics.js';
import { requireScope } from '../platform/request-guards.js';
import { createLogger } from '../platform/logger.js';
import { invalidField, serviceError, toConnectError } from '../contract/index.js';
import { limitReached, MAX_ROUTING_RULES } from '../contract/project-caps.js';
import { decisionWriter, type DecisionWriter } from './decision-writer.js';
import { planPayoutHandler } from './payout-routing.js';
import { assessRisk } from './risk-rules.js';
import type { ProviderAccount } from './provider-account.js';
import { planRoute, withVaultConnections, type Reach } from './route-planner.js';
import { rankPlan } from './ranked-route.js';
import { experimentReport } from './experiment-report.js';
import { ruleLearns } from './learning-scopes.js';
import { probesInFlight } from './probes-in-flight.js';
import type { Variant } from './ab-arms.js';
import { STRATEGY_TYPES, type HealthHistory, type Ranking, type SegmentHistory, type StrategyConfig } from './strategies/index.js';
import { ruleProblem, type NewRule, type RoutingRule } from './routing-rules.js';
import type { RoutingRiskStore } from './store.js';

function requireInput(input: RiskInput | undefined): RiskInput {
  if (!input || !input.paymentId || input.amount < 1n || input.currency.length !== 3 || !input.paymentMethodType) {
    throw invalidField('input', 'input with payment_id, amount, currency and payment_method_type is required');
  }
  return input;
}

/**
 * The card network the payment's credential names (card-facts.ts's vocabulary), checked: payments
 * sends it, but it names a segment in SQL and in a decision's reason. The BIN range is checked and
 * not used yet (docs/routing.md says why).
 */
function requireCard(req: { cardNetwork?: string; binRange?: string }): string | undefined {
  if (req.cardNetwork !== undefined && !/^[a-z_]{1,32}$/.test(req.cardNetwork)) {
    throw invalidField('card_network', 'card_network must be a card network name such as visa');
  }
  if (req.binRange !== undefined && !/^\d{6}$/.test(req.binRange)) {
    throw invalidField('bin_range', 'bin_range must be six digits');
  }
  return req.cardNetwork;
}

const minuteOf = (at: Date) => Math.floor(at.getTime() / 60_000);

/** The route in the deciding rule's strategy's order (planRoute picks the rule and the eligible accounts). */
function rankedRoute(
  accounts: ProviderAccount[], input: RiskInput, providerCode: string | undefined, reach: Reach[] | undefined,
  rules: RoutingRule[], learning: { history: SegmentHistory; health: HealthHistory; probing: ReadonlySet<string>; cardNetwork?: string },
  at: Date,
) {
  const req = {
    amount: input.amount, currency: input.currency, country: input.country, methodType: input.paymentMethodType, providerCode, reach,
  };
  return rankPlan(planRoute(accounts, req, rules), req, rules, { paymentId: input.paymentId, ...learning, nowMinute: minuteOf(at) });
}

/** The ranking as payments receives it, so its timeline and the dashboard can say why (no second read). */
function reasonsOf(ranking: Ranking) {
  return {
    strategy: ranking.strategy,
    reason: ranking.reason,
    explored: ranking.explored,
    scores: ranking.ranked.map((c) => ({
      providerAccountId: c.account.providerAccountId,
      providerCode: c.account.providerCode,
      providerName: c.account.providerName,
      score: c.score ?? undefined,
      sample: c.sample,
      note: c.note,
    })),
  };
}

function ruleToProto(r: RoutingRule) {
  return {
    id: r.id,
    name: r.name,
    priority: r.priority,
    currencies: r.currencies,
    countries: r.countries,
    paymentMethodTypes: r.methods,
    minAmount: r.minAmount ?? undefined,
    maxAmount: r.maxAmount ?? undefined,
    providers: r.providers,
    strategy: r.strategy ? JSON.stringify(r.strategy) : undefined,
    variant: r.variant ? JSON.stringify(r.variant) : undefined,
    experimentSince: timestampFromDate(r.experimentSince ?? r.createdAt),
    createdAt: timestampFromDate(r.createdAt),
  };
}

/** A rule's strategy or variant from its JSON text (validated with the rule, ruleProblem); absent or "null": none. */
function jsonOf<T>(text: string | undefined, param: string): T | null {
  if (text === undefined || text === '') return null;
  try {
    return JSON.parse(text) as T | null;
  } catch {
    throw invalidField(param, `${param} must be a JSON object`);
  }
}

const strategyOf = (text: string | undefined) => jsonOf<StrategyConfig>(text, 'strategy');
const variantOf = (text: string | undefined) => jsonOf<Variant>(text, 'variant');

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The rule as an update asks (absent fields kept) and the REST names of the fields that change; a
 * new strategy, variant or set of conditions restarts the rule's experiment (its arms then compare
 * payments the rule matches as it is now).
 */
function updated(current: RoutingRule, req: UpdateRoutingRuleRequest) {
  const next: NewRule = {
    ...current,
    priority: req.priority ?? current.priority,
    currencies: req.setCurrencies ? req.currencies : current.currencies,
    countries: req.setCountries ? req.countries : current.countries,
    methods: req.setPaymentMethodTypes ? req.paymentMethodTypes : current.methods,
    minAmount: req.setMinAmount ? req.minAmount ?? null : current.minAmount,
    maxAmount: req.setMaxAmount ? req.maxAmount ?? null : current.maxAmount,
    providers: req.setProviders ? req.providers : current.providers,
    strategy: req.strategy === undefined ? current.strategy : strategyOf(req.strategy),
    variant: req.variant === undefined ? current.variant : variantOf(req.variant),
  };
  const problem = ruleProblem(next);
  if (problem) throw invalidField(problem[0], problem[1]);
  const compared: [string, unknown, unknown][] = [
    ['priority', next.priority, current.priority],
    ['currencies', next.currencies, current.currencies],
    ['countries', next.countries, current.countries],
    ['payment_method_types', next.methods, current.methods],
    ['min_amount', next.minAmount?.toString(), current.minAmount?.toString()],
    ['max_amount', next.maxAmount?.toString(), current.maxAmount?.toString()],
    ['providers', next.providers, current.providers],
    ['strategy', next.strategy, current.strategy],
    ['variant', next.variant, current.variant],
  ];
  const changed = compared.filter(([, a, b]) => !sameJson(a, b)).map(([name]) => name);
  const restart = changed.some((f) => !['priority', 'providers'].includes(f));
  return { rule: next, changed, restart };
}

function newRuleOf(m: RuleMessage | undefined): NewRule {
  if (!m) throw invalidField('rule', 'rule is required');
  const rule: NewRule = {
    name: m.name,
    priority: m.priority,
    currencies: m.currencies,
    countries: m.countries,
    methods: m.paymentMethodTypes,
    minAmount: m.minAmount ?? null,
    maxAmount: m.maxAmount ?? null,
    providers: m.providers,
    strategy: strategyOf(m.strategy),
    variant: variantOf(m.variant),
  };
  const problem = ruleProblem(rule);
  if (problem) throw invalidField(problem[0], problem[1]);
  return rule;
}

async function requireKnownProviders(store: RoutingRiskStore, scope: Scope, providers: string[]): Promise<void> {
  const unknown = await store.unknownProviders(scope, providers);
  if (unknown.length > 0) {
    throw invalidField('providers', `providers: "${unknown[0]}" is neither a provider code nor an account of this project and mode`);
  }
}

const ruleNotFound = (id: string) => serviceError('resource_not_found', `No routing rule ${id}`, { param: 'id' });

// Routing rules are internal records with no contract prefix: `rtr_`.
const newRuleId = (at: Date) => newId('rtr', at);

/** Planning time per strategy: the budget is 2 ms at p99, so the buckets are finer than the platform's latency ones. */
function planTimer(metrics: Metrics | undefined) {
  return metrics?.histogram('svc_routing_plan_duration_seconds',
    'Time routing-risk takes to plan a payment\'s route, from its planning read to the ranked plan (by the deciding rule\'s strategy)',
    { strategy: [...STRATEGY_TYPES] }, [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1]);
}

/** `vaultOf`: the vault providers' codes and the vault each serves (their facts' capabilities.vault). */
/**
 * `decisions`: where each plan's decisions go once it is answered (decision-writer.ts); the part
 * passes its own so a graceful stop writes what is queued.
 */
export function routes(
  store: RoutingRiskStore, clock: Clock, vaultOf: Map<string, string> = new Map(), metrics?: Metrics,
  decisions: DecisionWriter = decisionWriter(store, createLogger('routing-risk', 'warn')),
) {
  const planned = planTimer(metrics);
  const probes = probesInFlight();
  return (router: ConnectRouter) => {
    router.service(RoutingService, {
      async planPayment(req) {
        const scope = requireScope(req.scope);
        const input = requireInput(req.input);
        const cardNetwork = requireCard(req);
        const at = clock.now();
        const started = performance.now();
        await decisions.written(scope, input);
        const inputs = await store.planningInputs(scope, input, at, { cardNetwork, nowMinute: minuteOf(at) });
        const { velocity, rules } = inputs;
        const { routable: accounts, reach } = withVaultConnections(inputs.accounts, req.credential?.reach.map((r) => ({
          providerCode: r.providerCode, providerAccountId: r.providerAccountId, vault: r.vault,
          vaultFeeFixed: r.vaultFeeFixed, vaultFeeBps: r.vaultFeeBps,
        })), vaultOf);
        const risk = { id: newId('rsk', at), ...assessRisk(input, velocity) };
        const plan =
          risk.outcome === 'block'
            ? undefined
            : {
                id: newId('rtd', at),
                ...rankedRoute(accounts, input, req.providerCode, reach, rules, {
                  history: inputs.history, health: inputs.health, cardNetwork,
                  probing: probes.pending(scope, input.paymentMethodType, input.currency, inputs.health, at.getTime()),
                }, at),
              };
        if (plan?.ranking.probed) probes.record(scope, input.paymentMethodType, input.currency, plan.ranking.probed, at.getTime());
        if (plan) planned?.observe({ strategy: plan.ranking.strategy }, secondsSince(started));
        // Written in the next batch, after this answer: the payment keeps the decision's summary.
        decisions.record({ scope, input, risk, routing: plan, at });
        return {
          risk: { decisionId: risk.id, score: risk.score, outcome: risk.outcome, reasons: risk.reasons },
          routing: plan && {
            decisionId: plan.id,
            rule: plan.rule,
            ruleId: plan.ruleId,
            candidates: plan.candidates.map((c) => ({
              providerId: c.providerId,
              providerCode: c.providerCode,
              providerName: c.providerName,
              providerAccountId: c.providerAccountId,
              feeFixed: c.feeFixed,
              feeBps: c.feeBps,
              latencyMs: c.latencyMs,
              vault: c.vault,
              vaultAccountId: c.vaultAccountId,
            })),
            skipped: plan.skipped,
            ...reasonsOf(plan.ranking),
          },
        };
      },

      async createRoutingRule(req) {
        const scope = requireScope(req.scope);
        const rule = newRuleOf(req.rule);
        await requireKnownProviders(store, scope, rule.providers);
        const at = clock.now();
        const created = await store.createRule(scope, newRuleId(at), rule, at);
        if (created === 'limit_reached') {
          throw toConnectError(limitReached(`${scope.mode} routing rules`, MAX_ROUTING_RULES, 'delete one it no longer uses first.'));
        }
        if (!created) {
          throw invalidField('name', `A routing rule named "${rule.name}" already exists in this project and mode`);
        }
        if (ruleLearns(created)) await store.backfillMinutes(scope);
        return { rule: ruleToProto(created) };
      },

      async listRoutingRules(req) {
        const rules = await store.rulesFor(requireScope(req.scope));
        return { rules: rules.map(ruleToProto) };
      },

      async deleteRoutingRule(req) {
        const rule = await store.deleteRule(requireScope(req.scope), req.id);
        if (!rule) throw ruleNotFound(req.id);
        return { rule: ruleToProto(rule) };
      },

      async updateRoutingRule(req) {
        const scope = requireScope(req.scope);
        let changed: string[] = [];
        const rule = await store.updateRule(scope, req.id, clock.now(), async (current) => {
          const next = updated(current, req);
          if (next.changed.includes('providers')) await requireKnownProviders(store, scope, next.rule.providers);
          changed = next.changed;
          return next;
        });
        if (!rule) throw ruleNotFound(req.id);
        if (ruleLearns(rule) && (changed.includes('strategy') || changed.includes('variant'))) await store.backfillMinutes(scope);
        return { rule: ruleToProto(rule), changed };
      },

      async getRoutingRuleReport(req) {
        const scope = requireScope(req.scope);
        const rule = await store.ruleById(scope, req.id);
        if (!rule) throw ruleNotFound(req.id);
        const report = experimentReport(rule, await store.armCounts(scope, rule));
        return {
          rule: ruleToProto(rule),
          arms: report.arms.map((a) => ({
            arm: a.arm, share: a.share, strategy: JSON.stringify(a.strategy), payments: BigInt(a.payments),
            approved: BigInt(a.approved), firstAttemptApproved: BigInt(a.firstAttemptApproved),
            acceptance: a.acceptance, interval: a.interval,
            firstAttemptAcceptance: a.firstAttemptAcceptance, firstAttemptInterval: a.firstAttemptInterval,
            extraAttemptsPerPayment: a.extraAttemptsPerPayment, feeBps: a.feeBps, latencyMsPerPayment: a.latencyMsPerPayment,
          })),
          difference: report.difference?.estimate,
          differenceInterval: report.difference && { low: report.difference.low, high: report.difference.high },
          firstAttemptDifference: report.firstAttemptDifference?.estimate,
          firstAttemptDifferenceInterval: report.firstAttemptDifference
            && { low: report.firstAttemptDifference.low, high: report.firstAttemptDifference.high },
        };
      },

      planPayout: planPayoutHandler(store),
    });
  };
}
