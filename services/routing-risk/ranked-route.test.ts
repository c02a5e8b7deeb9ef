import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rankPlan } from './ranked-route.js';
import type { ProviderAccount } from './provider-account.js';
import { planRoute } from './route-planner.js';
import type { RoutingRule } from './routing-rules.js';
import type { SegmentHistory } from './strategies/index.js';

function account(code: string, feeBps: number): ProviderAccount {
  return {
    providerId: `prv_${code}`, providerCode: code, providerName: code, providerAccountId: `pac_${code}`, connected: false,
    currencies: [], countries: [], methods: ['card'], feeFixed: 0n, feeBps, latencyMs: 0,
  };
}
const accounts = [account('a', 300), account('b', 200), account('c', 100)];
const req = { amount: 10_000n, currency: 'EUR', country: 'DE', methodType: 'card' };

function rule(over: Partial<RoutingRule> = {}): RoutingRule {
  return {
    id: 'rtr_1', name: 'r', priority: 1, currencies: [], countries: [], methods: [], minAmount: null, maxAmount: null,
    providers: ['a', 'b', 'c'], createdAt: new Date(0), ...over,
  };
}

const order = (plan: { candidates: ProviderAccount[] }) => plan.candidates.map((c) => c.providerCode);

test('without a strategy, routes are today\'s: the default rule cheapest first, a rule in its order', () => {
  const byDefault = rankPlan(planRoute(accounts, req, []), req, []);
  assert.deepEqual(order(byDefault), ['c', 'b', 'a']);
  assert.equal(byDefault.ranking.strategy, 'cheapest');
  const rules = [rule()];
  const byRule = rankPlan(planRoute(accounts, req, rules), req, rules);
  assert.deepEqual(order(byRule), ['a', 'b', 'c']);
  assert.equal(byRule.ranking.strategy, 'priority');
  assert.equal(byRule.ranking.reason, 'the rule\'s order: a, then b, then c');
});

test('the deciding rule\'s strategy orders its candidates, reading the payment\'s history', () => {
  const history: SegmentHistory = new Map([
    ['pac_b', new Map([[2, [{ minute: 100, succeeded: 95, soft: 5, hard: 0, technical: 0 }]]])],
    ['pac_a', new Map([[2, [{ minute: 100, succeeded: 70, soft: 30, hard: 0, technical: 0 }]]])],
  ]);
  const rules = [rule({ strategy: { type: 'success_rate', settings: { explorationShare: 0 } } })];
  const plan = rankPlan(planRoute(accounts, req, rules), req, rules, { paymentId: 'pay_1', history, health: new Map(), nowMinute: 100 });
  assert.deepEqual(order(plan), ['b', 'c', 'a'], 'c has no rate: it sorts at the pooled rate, between b and a');
  assert.equal(plan.ranking.strategy, 'success_rate');
  assert.equal(plan.rule, 'r');
  const cheapest = [rule({ strategy: { type: 'cheapest' } })];
  assert.deepEqual(order(rankPlan(planRoute(accounts, req, cheapest), req, cheapest)), ['c', 'b', 'a']);
});
