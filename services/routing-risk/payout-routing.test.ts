import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planPayoutRoute, type PayoutCapability, type PayoutRequest } from './payout-routing.js';
import type { ProviderAccount } from './provider-account.js';

const account = (code: string, extra: Partial<ProviderAccount> = {}): ProviderAccount => ({
  providerId: `prv_${code}`, providerCode: code, providerName: code, providerAccountId: `pac_${code}`, connected: false,
  currencies: [], countries: [], methods: ['card'], feeFixed: 0n, feeBps: 0, latencyMs: 0, ...extra,
});
const demo = [account('demo_alpha'), account('demo_beta'), account('demo_gamma')];
const codes = (plan: ReturnType<typeof planPayoutRoute>) => plan.candidates.map((c) => c.account.providerCode);
// As migration 0005-payout-capabilities.sql seeds them.
const CAPABILITIES: Record<string, PayoutCapability> = {
  demo_alpha: { destinationTypes: ['card_token', 'wallet'], feeFixed: 25n, feeBps: 0 },
  demo_beta: { destinationTypes: ['bank_account'], feeFixed: 20n, feeBps: 0 },
  demo_gamma: { destinationTypes: ['bank_account', 'wallet', 'card_token'], feeFixed: 15n, feeBps: 50 },
  stripe: { destinationTypes: ['bank_account', 'card_token'], feeFixed: 0n, feeBps: 0 },
};
const plan = (accounts: ProviderAccount[], req: PayoutRequest) => planPayoutRoute(accounts, req, CAPABILITIES);

test('bank accounts go to bank rails first, card tokens to card networks first, by rule', () => {
  const bank = plan(demo, { amount: 5000n, currency: 'EUR', destinationType: 'bank_account' });
  assert.equal(bank.rule, 'bank_account');
  assert.deepEqual(codes(bank), ['demo_beta', 'demo_gamma']);
  assert.deepEqual(bank.candidates.map((c) => c.fee), [20n, 40n]);
  const card = plan(demo, { amount: 5000n, currency: 'EUR', destinationType: 'card_token' });
  assert.equal(card.rule, 'card_token');
  assert.deepEqual(codes(card), ['demo_alpha', 'demo_gamma']);
});

test('without a rule for the destination type: the default rule, cheapest first for the amount', () => {
  assert.deepEqual(codes(plan(demo, { amount: 1000n, currency: 'EUR', destinationType: 'wallet' })), ['demo_gamma', 'demo_alpha']);
  const big = plan(demo, { amount: 100_000n, currency: 'EUR', destinationType: 'wallet' });
  assert.equal(big.rule, 'default');
  assert.deepEqual(codes(big), ['demo_alpha', 'demo_gamma']);
});

test('a rule whose providers are not connected falls through; no capable provider means no candidates', () => {
  const onlyGamma = [account('demo_gamma')];
  const gamma = plan(onlyGamma, { amount: 5000n, currency: 'EUR', destinationType: 'bank_account' });
  assert.deepEqual([gamma.rule, codes(gamma)], ['bank_account', ['demo_gamma']]);
  const noEur = [account('demo_beta', { currencies: ['USD'] })];
  assert.deepEqual(codes(plan(noEur, { amount: 5000n, currency: 'EUR', destinationType: 'bank_account' })), []);
  const licensed = [account('acme_pay')];
  const none = plan(licensed, { amount: 5000n, currency: 'EUR', destinationType: 'bank_account' });
  assert.deepEqual([none.rule, none.candidates], ['default', []], 'a provider sends payouts once its capability is listed');
});

test('a live scope\'s connected Stripe account pays out bank accounts and cards, never wallets; others without a capability not at all', () => {
  const live = [account('stripe', { connected: true }), account('adyen', { connected: true })];
  const bank = plan(live, { amount: 5000n, currency: 'EUR', destinationType: 'bank_account' });
  assert.deepEqual([bank.rule, codes(bank), bank.candidates[0].fee], ['default', ['stripe'], 0n]);
  assert.deepEqual(codes(plan(live, { amount: 5000n, currency: 'EUR', destinationType: 'card_token' })), ['stripe']);
  assert.deepEqual(codes(plan(live, { amount: 5000n, currency: 'EUR', destinationType: 'wallet' })), []);
  const narrowed = [account('stripe', { connected: true, currencies: ['USD'] })];
  assert.deepEqual(codes(plan(narrowed, { amount: 5000n, currency: 'EUR', destinationType: 'bank_account' })), []);
});

test('test payouts keep going to the demo providers by rule when the project also has a Stripe test account', () => {
  const both = [...demo, account('stripe', { connected: true })];
  assert.deepEqual(codes(plan(both, { amount: 5000n, currency: 'EUR', destinationType: 'bank_account' })), ['demo_beta', 'demo_gamma']);
});
