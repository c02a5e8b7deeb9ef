import assert from 'node:assert/strict';
import { test } from 'node:test';
import { outcomeOf, returnedOf } from './dispatcher.js';
import type { PayoutRecord } from './model.js';
import { DemoPayoutConnector, PAYOUT_SCENARIOS, payoutConnectorFor } from './providers.js';
import { availableFunds, settledFundsOnly } from './payouts.js';

const at = new Date('2026-03-01T00:00:00.000Z');
const queued = (): PayoutRecord => ({
  id: 'po_1', merchantId: 'mer_1', projectId: 'prj_1', mode: 'test', status: 'pending', amount: 5000n, currency: 'EUR',
  destination: { type: 'bank_account', token: 'ben_1', display: '•••• 1', holderName: null, country: null },
  description: null, reference: null, metadata: {}, testScenario: null, providerId: 'prv_demo_beta',
  providerCode: 'demo_beta', providerName: 'Demo Beta', providerAccountId: 'pac_demo_beta', providerPayoutId: null,
  routingRule: 'bank_account', feeAmount: 20n, failure: null, sendAfter: at, sentAt: null, createdAt: at, updatedAt: at,
});

test('each demo scenario forces its outcome: status, failure, the fee charged and the funds released', async () => {
  const expected: Record<string, [string, string | null, bigint, bigint, string | undefined]> = {
    success: ['successful', null, 20n, 0n, 'payout.successful'],
    technical_error: ['failed', 'provider_error', 0n, 5020n, 'payout.failed'],
    hard_decline: ['failed', 'hard_decline', 0n, 5020n, 'payout.failed'],
    unavailable: ['failed', 'provider_unavailable', 0n, 5020n, 'payout.failed'],
    timeout: ['processing', null, 20n, 0n, undefined],
    insufficient_funds: ['failed', 'insufficient_funds', 0n, 5020n, 'payout.failed'],
  };
  assert.deepEqual(PAYOUT_SCENARIOS.map((s) => s.name), Object.keys(expected));
  for (const [scenario, [status, code, fee, release, event]] of Object.entries(expected)) {
    const p = queued();
    const answer = await new DemoPayoutConnector().send({
      ...p, scope: p, description: undefined, payoutId: p.id, providerCode: 'demo_beta', providerAccountId: 'pac_demo_beta', testScenario: scenario,
    });
    const change = outcomeOf(p, answer, at);
    assert.deepEqual(
      [p.status, p.failure?.code ?? null, p.feeAmount, change.release, change.event], [status, code, fee, release, event], scenario,
    );
    if (status === 'successful') assert.match(p.providerPayoutId!, /^demo_beta_po_/);
  }
});

test('connectors: demo providers built in, licensed ones by code, none otherwise; the funds rule', () => {
  assert.ok(payoutConnectorFor('demo_alpha') instanceof DemoPayoutConnector);
  const acme = { send: async () => ({ outcome: 'success' as const, providerPayoutId: 'x', providerCode: null, providerMessage: null }) };
  assert.equal(payoutConnectorFor('acme', { acme }), acme);
  assert.equal(payoutConnectorFor('acme'), undefined);
  assert.equal(payoutConnectorFor('acme', {}, acme), acme, 'any other provider: payments\' licensed payouts');
  assert.ok(payoutConnectorFor('demo_beta', {}, acme) instanceof DemoPayoutConnector);
  assert.equal(availableFunds(10_000n, 9_980n), 20n);
  assert.equal(availableFunds(-205n, 0n), -205n, 'a provider that collected fees leaves nothing to pay out');
  assert.equal(settledFundsOnly('live'), true, 'live payouts spend settled funds only');
  assert.equal(settledFundsOnly('test'), false, 'sandbox money is simulated');
  assert.equal(settledFundsOnly('staging'), true, 'any other mode keeps the rule');
});

test('a provider\'s pending payout stays processing with its id; its failure from the connector; a blind status query keeps the id', () => {
  const p = queued();
  const none = { providerCode: null, providerMessage: null };
  assert.deepEqual(outcomeOf(p, { outcome: 'pending', providerPayoutId: 'po_1', ...none }, at), { release: 0n });
  assert.deepEqual([p.status, p.providerPayoutId, p.sentAt], ['processing', 'po_1', at]);
  const later = new Date(at.getTime() + 60_000);
  outcomeOf(p, { outcome: 'timeout', providerPayoutId: null, ...none }, later);
  assert.deepEqual([p.status, p.providerPayoutId, p.sentAt], ['processing', 'po_1', at], 'first sent at stays');
  const failure = { code: 'account_closed', category: 'hard', message: 'The beneficiary\'s bank account is closed.' };
  const change = outcomeOf(p, { outcome: 'hard_decline', providerPayoutId: 'po_1', ...none, failure }, later);
  assert.deepEqual([p.status, p.failure, p.feeAmount, change.event], ['failed', failure, 0n, 'payout.failed']);
});

test('a paid payout its bank returns: failed with the provider\'s reason, its amount released, the fee kept; no failure leaves it paid', () => {
  const none = { providerCode: null, providerMessage: null };
  const paid = () => {
    const p = queued();
    outcomeOf(p, { outcome: 'success', providerPayoutId: 'po_1', ...none }, at);
    return p;
  };
  for (const outcome of ['success', 'pending', 'timeout'] as const) {
    const p = paid();
    assert.equal(returnedOf(p, { outcome, providerPayoutId: 'po_1', ...none }, new Date(at.getTime() + 1)), undefined, outcome);
    assert.deepEqual([p.status, p.failure, p.updatedAt], ['successful', null, at], `${outcome} changes nothing`);
  }
  const later = new Date(at.getTime() + 3 * 86_400_000);
  const p = paid();
  const failure = { code: 'account_closed', category: 'hard', message: 'The beneficiary\'s bank account is closed.' };
  assert.deepEqual(returnedOf(p, { outcome: 'hard_decline', providerPayoutId: null, ...none, failure }, later),
    { release: 5000n, event: 'payout.failed' });
  assert.deepEqual([p.status, p.failure, p.feeAmount, p.providerPayoutId, p.updatedAt, p.sentAt], ['failed', failure, 20n, 'po_1', later, at],
    'the fee stays charged, the provider\'s id and the time it was paid stay');
  const q = paid();
  returnedOf(q, { outcome: 'technical_error', providerPayoutId: 'po_1', ...none }, later);
  assert.equal(q.failure?.code, 'provider_error', 'without the provider\'s failure, the outcome\'s own');
});
