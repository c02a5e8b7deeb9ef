import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProviderAccount } from './provider-account.js';
import { planRoute } from './route-planner.js';
import { ruleMatches, ruleProblem, type NewRule, type RoutingRule } from './routing-rules.js';

function rule(name: string, over: Partial<RoutingRule> = {}): RoutingRule {
  return {
    id: `rtr_${name}`, name, priority: 10, currencies: [], countries: [], methods: [], minAmount: null,
    maxAmount: null, providers: ['b'], createdAt: new Date(0), ...over,
  };
}

function account(code: string, over: Partial<ProviderAccount> = {}): ProviderAccount {
  return {
    providerId: `prv_${code}`, providerCode: code, providerName: code, providerAccountId: `pac_${code}`, connected: false,
    currencies: [], countries: [], methods: ['card'], feeFixed: 0n, feeBps: 0, latencyMs: 0, ...over,
  };
}

const card = (amount: bigint, currency = 'EUR', country?: string) => ({ amount, currency, country, methodType: 'card' });

test('a rule matches when every condition it sets holds; empty lists and absent bounds match anything', () => {
  assert.equal(ruleMatches(rule('any'), card(1n)), true);
  const eurBand = rule('eur', { currencies: ['EUR'], minAmount: 1000n, maxAmount: 5000n });
  assert.equal(ruleMatches(eurBand, card(1000n)), true, 'min is inclusive');
  assert.equal(ruleMatches(eurBand, card(5000n)), true, 'max is inclusive');
  assert.equal(ruleMatches(eurBand, card(999n)), false);
  assert.equal(ruleMatches(eurBand, card(5001n)), false);
  assert.equal(ruleMatches(eurBand, card(2000n, 'USD')), false);
  const de = rule('de', { countries: ['DE'] });
  assert.equal(ruleMatches(de, card(1n, 'EUR', 'DE')), true);
  assert.equal(ruleMatches(de, card(1n, 'EUR', 'FR')), false);
  assert.equal(ruleMatches(de, card(1n, 'EUR')), false, 'a rule with countries needs the payment\'s country');
  const wallets = rule('w', { methods: ['wallet'] });
  assert.equal(ruleMatches(wallets, card(1n)), false);
  assert.equal(ruleMatches(wallets, { ...card(1n), methodType: 'wallet' }), true);
});

test('the first matching rule by priority decides, and its providers are the candidates in its order', () => {
  const accounts = [account('a', { feeBps: 100 }), account('b', { feeBps: 200 }), account('c', { feeBps: 300 })];
  const rules = [
    rule('late', { priority: 20, providers: ['a'] }),
    rule('early', { priority: 5, providers: ['c', 'pac_b'], currencies: ['EUR'] }),
    rule('tie_b', { priority: 20, providers: ['b'] }),
  ];
  const eur = planRoute(accounts, card(1000n), rules);
  assert.equal(eur.rule, 'early');
  assert.equal(eur.ruleId, 'rtr_early');
  assert.deepEqual(eur.candidates.map((c) => c.providerCode), ['c', 'b']);
  // USD skips "early"; "late" and "tie_b" share priority 20 and go by name.
  const usd = planRoute(accounts, card(1000n, 'USD'), rules);
  assert.equal(usd.rule, 'late');
  assert.deepEqual(usd.candidates.map((c) => c.providerCode), ['a']);
});

test('no matching rule, or a rule whose providers cannot take the payment, leaves it to the default rule', () => {
  const accounts = [account('a', { feeBps: 300 }), account('b', { feeBps: 100 }), account('qr', { methods: ['qr'] })];
  const none = planRoute(accounts, card(1000n), [rule('usd', { currencies: ['USD'] })]);
  assert.equal(none.rule, 'default');
  assert.equal(none.ruleId, undefined);
  assert.deepEqual(none.candidates.map((c) => c.providerCode), ['b', 'a']);
  const unusable = planRoute(accounts, card(1000n), [rule('qr_only', { providers: ['qr', 'not_connected'] })]);
  assert.equal(unusable.rule, 'default');
  assert.deepEqual(planRoute([], card(1000n), [rule('any')]), { rule: 'default', candidates: [], skipped: [] });
});

test('a new rule is checked field by field', () => {
  const ok: NewRule = {
    name: 'eur-large', priority: 1, currencies: ['EUR'], countries: ['DE'], methods: ['card'], minAmount: 0n,
    maxAmount: 10n, providers: ['demo_alpha', 'pac_x'],
  };
  assert.equal(ruleProblem(ok), undefined);
  const cases: Array<[Partial<NewRule>, string]> = [
    [{ name: '' }, 'name'], [{ name: 'Default' }, 'name'], [{ name: 'has space' }, 'name'],
    [{ priority: -1 }, 'priority'], [{ priority: 1.5 }, 'priority'],
    [{ currencies: ['eur'] }, 'currencies'], [{ countries: ['DEU'] }, 'countries'],
    [{ methods: ['cheque'] }, 'payment_method_types'], [{ providers: [] }, 'providers'],
    [{ providers: ['a', 'a'] }, 'providers'], [{ minAmount: -1n }, 'min_amount'], [{ maxAmount: 0n }, 'max_amount'],
    [{ minAmount: 11n, maxAmount: 10n }, 'max_amount'],
  ];
  for (const [over, param] of cases) assert.equal(ruleProblem({ ...ok, ...over })?.[0], param, JSON.stringify(over, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)));
});
