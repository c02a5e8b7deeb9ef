import assert from 'node:assert/strict';
import { test } from 'node:test';
import { feeFor } from '../contract/index.js';
import { planRoute, type ProviderAccount } from './route-planner.js';

function account(code: string, over: Partial<ProviderAccount> = {}): ProviderAccount {
  return {
    providerId: `prv_${code}`, providerCode: code, providerName: code, providerAccountId: `pac_${code}`, connected: false,
    currencies: [], countries: [], methods: ['card'], feeFixed: 0n, feeBps: 0, latencyMs: 0, ...over,
  };
}

test('fees are fixed plus basis points of the amount, in minor units', () => {
  assert.equal(feeFor({ feeFixed: 30n, feeBps: 290 }, 1000n), 59n);
  assert.equal(feeFor({ feeFixed: 10n, feeBps: 300 }, 1000n), 40n);
});

test('the default rule keeps eligible accounts only, cheapest first for the amount', () => {
  const accounts = [
    account('a', { feeFixed: 30n, feeBps: 290 }),
    account('b', { feeFixed: 20n, feeBps: 250 }),
    account('c', { feeFixed: 10n, feeBps: 300 }),
    account('eur_only', { currencies: ['EUR'] }),
    account('qr_only', { methods: ['qr'] }),
    account('fr_only', { countries: ['FR'] }),
  ];
  const small = planRoute(accounts, { amount: 1000n, currency: 'USD', country: 'DE', methodType: 'card' });
  assert.equal(small.rule, 'default');
  assert.deepEqual(small.candidates.map((c) => c.providerCode), ['c', 'b', 'a']);
  // At 1,000,000 the percentage dominates: b (2.5%) beats c (3%).
  const large = planRoute(accounts, { amount: 1_000_000n, currency: 'USD', country: 'DE', methodType: 'card' });
  assert.deepEqual(large.candidates.map((c) => c.providerCode), ['b', 'a', 'c']);
  const eur = planRoute(accounts, { amount: 1000n, currency: 'EUR', country: 'FR', methodType: 'card' });
  assert.deepEqual(eur.candidates.map((c) => c.providerCode), ['eur_only', 'fr_only', 'c', 'b', 'a']);
  assert.deepEqual(planRoute(accounts, { amount: 1n, currency: 'EUR', methodType: 'instant' }).candidates, []);
  // A stored method's issuer: only its accounts, and none if it cannot take the payment.
  const issuer = planRoute(accounts, { amount: 1000n, currency: 'USD', country: 'DE', methodType: 'card', providerCode: 'b' });
  assert.deepEqual(issuer.candidates.map((c) => c.providerCode), ['b']);
  assert.deepEqual(planRoute(accounts, { amount: 1000n, currency: 'USD', methodType: 'card', providerCode: 'eur_only' }).candidates, []);
});

test('connected accounts come before demo ones, each cheapest first; the account\'s own lists apply', () => {
  const accounts = [
    account('demo_cheap', { feeFixed: 0n, feeBps: 10 }),
    account('stripe', { connected: true, feeFixed: 25n, feeBps: 140, currencies: ['EUR'] }),
    account('adyen', { connected: true, feeFixed: 10n, feeBps: 120 }),
  ];
  const eur = planRoute(accounts, { amount: 1000n, currency: 'EUR', methodType: 'card' });
  assert.deepEqual(eur.candidates.map((c) => c.providerCode), ['adyen', 'stripe', 'demo_cheap']);
  const usd = planRoute(accounts, { amount: 1000n, currency: 'USD', methodType: 'card' });
  assert.deepEqual(usd.candidates.map((c) => c.providerCode), ['adyen', 'demo_cheap']);
});
