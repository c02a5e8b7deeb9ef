import assert from 'node:assert/strict';
import { test } from 'node:test';
import { feeFor } from '../contract/index.js';
import type { ProviderAccount } from './provider-account.js';
import { planRoute, withVaultConnections } from './route-planner.js';

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

const licensed = (code: string, name: string, over: Partial<ProviderAccount> = {}) =>
  account(code, { connected: true, providerName: name, ...over });
const reach = (providerCode: string, over: { providerAccountId?: string; vault?: string; vaultFeeFixed?: bigint; vaultFeeBps?: number } = {}) =>
  ({ providerCode, vaultFeeFixed: 0n, vaultFeeBps: 0, ...over });

test('a provider token reaches its issuer only; the others are skipped and named', () => {
  const accounts = [licensed('stripe', 'Stripe', { feeFixed: 10n }), licensed('adyen', 'Adyen', { feeFixed: 5n })];
  const plan = planRoute(accounts, { amount: 1000n, currency: 'EUR', methodType: 'card', reach: [reach('stripe')] });
  assert.deepEqual(plan.candidates.map((c) => [c.providerCode, c.vault]), [['stripe', undefined]]);
  assert.deepEqual(plan.skipped, [{ providerCode: 'adyen', providerName: 'Adyen', providerAccountId: 'pac_adyen', reason: 'no credential for Adyen' }]);
  // No credential at all reaches nothing: every account is skipped, and none is tried.
  const none = planRoute(accounts, { amount: 1000n, currency: 'EUR', methodType: 'card', reach: [] });
  assert.deepEqual(none.candidates, []);
  assert.deepEqual(none.skipped.map((s) => s.reason), ['no credential for Stripe', 'no credential for Adyen']);
});

test('an account-bound token reaches that account only; a vault forwards, its fee added, direct preferred', () => {
  const accounts = [
    licensed('stripe', 'Stripe', { providerAccountId: 'pac_s1', feeFixed: 10n }),
    licensed('stripe', 'Stripe', { providerAccountId: 'pac_s2', feeFixed: 1n }),
    licensed('adyen', 'Adyen', { feeFixed: 5n, feeBps: 100 }),
  ];
  const plan = planRoute(accounts, {
    amount: 1000n, currency: 'EUR', methodType: 'card',
    reach: [reach('stripe', { providerAccountId: 'pac_s1' }), reach('adyen', { vault: 'stripe', vaultFeeFixed: 20n, vaultFeeBps: 10 })],
  });
  assert.deepEqual(plan.candidates.map((c) => [c.providerAccountId, c.vault, c.feeFixed, c.feeBps]), [
    ['pac_s1', undefined, 10n, 0],
    ['pac_adyen', 'stripe', 25n, 110],
  ]);
  assert.deepEqual(plan.skipped.map((s) => [s.providerAccountId, s.reason]), [
    ['pac_s2', 'no credential for this Stripe account (its token is bound to pac_s1)'],
  ]);
  // Reached both ways, an account is sent the token directly, without the vault's fee.
  const both = planRoute(accounts.slice(2), {
    amount: 1000n, currency: 'EUR', methodType: 'card', reach: [reach('adyen', { vault: 'stripe', vaultFeeFixed: 20n }), reach('adyen')],
  });
  assert.deepEqual(both.candidates.map((c) => [c.vault, c.feeFixed]), [[undefined, 5n]]);
});

test('demo accounts take any credential; accounts that cannot take the payment at all are not called skipped', () => {
  const accounts = [account('demo_alpha'), licensed('stripe', 'Stripe', { currencies: ['USD'] })];
  const plan = planRoute(accounts, { amount: 1000n, currency: 'EUR', methodType: 'card', reach: [reach('adyen')] });
  assert.deepEqual(plan.candidates.map((c) => c.providerCode), ['demo_alpha']);
  assert.deepEqual(plan.skipped, []);
  // A demo provider's own token stays with it.
  const issued = planRoute([account('demo_alpha'), account('demo_beta')], { amount: 1000n, currency: 'EUR', methodType: 'card', reach: [reach('demo_beta')] });
  assert.deepEqual(issued.candidates.map((c) => c.providerCode), ['demo_beta']);
  assert.deepEqual(issued.skipped.map((k) => k.reason), ['no credential for demo_alpha']);
});

test('vault connections are never routable; a forwarded reach takes its connection\'s fee, or reaches nothing without one', () => {
  const vaultOf = new Map([['stripe_vault', 'stripe']]);
  const accounts = [licensed('adyen', 'Adyen', { feeFixed: 5n }), licensed('stripe_vault', 'Stripe vault', { feeFixed: 15n, feeBps: 20 })];
  const forwarded = [reach('adyen', { vault: 'stripe' })];
  const { routable, reach: priced } = withVaultConnections(accounts, forwarded, vaultOf);
  assert.deepEqual(routable.map((a) => a.providerCode), ['adyen']);
  assert.deepEqual(priced, [{ ...forwarded[0], vaultFeeFixed: 15n, vaultFeeBps: 20, vaultAccountId: 'pac_stripe_vault' }]);
  const plan = planRoute(routable, { amount: 1000n, currency: 'EUR', methodType: 'card', reach: priced });
  assert.deepEqual(plan.candidates.map((c) => [c.providerCode, c.vault, c.vaultAccountId, c.feeFixed, c.feeBps]), [
    ['adyen', 'stripe', 'pac_stripe_vault', 20n, 20],
  ]);
  // Without an active connection of the vault, the reference reaches nothing but is named as skipped.
  const unconnected = withVaultConnections(accounts.slice(0, 1), forwarded, vaultOf);
  assert.deepEqual(unconnected.reach, []);
  const none = planRoute(unconnected.routable, { amount: 1000n, currency: 'EUR', methodType: 'card', reach: unconnected.reach });
  assert.deepEqual(none.skipped.map((k) => k.reason), ['no credential for Adyen']);
  // No reach (no credential to go by): vault connections are still left out.
  assert.deepEqual(withVaultConnections(accounts, undefined, vaultOf).routable.map((a) => a.providerCode), ['adyen']);
});
