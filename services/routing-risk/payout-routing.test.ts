import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planPayoutRoute } from './payout-routing.js';
import type { ProviderAccount } from './route-planner.js';

const account = (code: string, extra: Partial<ProviderAccount> = {}): ProviderAccount => ({
  providerId: `prv_${code}`, providerCode: code, providerName: code, providerAccountId: `pac_${code}`,
  currencies: [], countries: [], methods: ['card'], feeFixed: 0n, feeBps: 0, latencyMs: 0, ...extra,
});
const demo = [account('demo_alpha'), account('demo_beta'), account('demo_gamma')];
const codes = (plan: ReturnType<typeof planPayoutRoute>) => plan.candidates.map((c) => c.account.providerCode);

test('bank accounts go to bank rails first, card tokens to card networks first, by rule', () => {
  const bank = planPayoutRoute(demo, { amount: 5000n, currency: 'EUR', destinationType: 'bank_account' });
  assert.equal(bank.rule, 'bank_account');
  assert.deepEqual(codes(bank), ['demo_beta', 'demo_gamma']);
  assert.deepEqual(bank.candidates.map((c) => c.fee), [20n, 40n]);
  const card = planPayoutRoute(demo, { amount: 5000n, currency: 'EUR', destinationType: 'card_token' });
  assert.equal(card.rule, 'card_token');
  assert.deepEqual(codes(card), ['demo_alpha', 'demo_gamma']);
});

test('without a rule for the destination type: the default rule, cheapest first for the amount', () => {
  assert.deepEqual(codes(planPayoutRoute(demo, { amount: 1000n, currency: 'EUR', destinationType: 'wallet' })), ['demo_gamma', 'demo_alpha']);
  const big = planPayoutRoute(demo, { amount: 100_000n, currency: 'EUR', destinationType: 'wallet' });
  assert.equal(big.rule, 'default');
  assert.deepEqual(codes(big), ['demo_alpha', 'demo_gamma']);
});

test('a rule whose providers are not connected falls through; no capable provider means no candidates', () => {
  const onlyGamma = [account('demo_gamma')];
  const plan = planPayoutRoute(onlyGamma, { amount: 5000n, currency: 'EUR', destinationType: 'bank_account' });
  assert.deepEqual([plan.rule, codes(plan)], ['bank_account', ['demo_gamma']]);
  const noEur = [account('demo_beta', { currencies: ['USD'] })];
  assert.deepEqual(codes(planPayoutRoute(noEur, { amount: 5000n, currency: 'EUR', destinationType: 'bank_account' })), []);
  const licensed = [account('acme_pay')];
  const none = planPayoutRoute(licensed, { amount: 5000n, currency: 'EUR', destinationType: 'bank_account' });
  assert.deepEqual([none.rule, none.candidates], ['default', []], 'a provider sends payouts once its capability is listed');
});
