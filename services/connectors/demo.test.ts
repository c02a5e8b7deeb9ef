import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DemoConnector } from './demo.js';
import { PAYMENT_SCENARIOS, playFor } from './scenarios.js';
import type { AuthorizeRequest, RoutedAccount } from './types.js';

const demo = new DemoConnector();
const account: RoutedAccount = { providerCode: 'demo_beta', id: 'pac_demo_beta', feeFixed: 20n, feeBps: 250, latencyMs: 0 };
const req = (testScenario: string | undefined, attemptNumber: number): AuthorizeRequest => ({
  paymentId: 'pay_1', attemptId: `att_${attemptNumber}`, attemptNumber, amount: 1000n, currency: 'EUR',
  methodType: 'card', captureMethod: 'automatic', account, testScenario, signal: new AbortController().signal,
});

test('the catalogue is the contract\'s eight scenarios, the dispute and the late success ones, each described', () => {
  assert.deepEqual(PAYMENT_SCENARIOS.map((s) => s.name), [
    'success', 'failover', 'timeout', 'timeout_recovered', 'unavailable', 'hard_decline', 'soft_decline', 'all_fail',
    'dispute', 'late_success',
  ]);
  assert.deepEqual([...DemoConnector.scenarios], PAYMENT_SCENARIOS.map((s) => s.name));
  for (const s of PAYMENT_SCENARIOS) assert.ok(s.description.length > 40, s.name);
  assert.throws(() => playFor('explode', 1));
});

test('what the first and a later provider answer, scenario by scenario', async () => {
  const expected: Record<string, [string, string]> = {
    success: ['success', 'success'],
    failover: ['soft_decline', 'success'],
    timeout: ['timeout', 'success'],
    timeout_recovered: ['timeout', 'success'],
    unavailable: ['provider_unavailable', 'success'],
    hard_decline: ['hard_decline', 'success'],
    soft_decline: ['soft_decline', 'soft_decline'],
    all_fail: ['technical_error', 'technical_error'],
    // Succeeds; its chargeback is the payments part's to open later (disputes/sandbox.ts).
    dispute: ['success', 'success'],
    // As timeout; the first provider's late charge is reported later (payments' late-charges/).
    late_success: ['timeout', 'success'],
  };
  for (const [name, [first, later]] of Object.entries(expected)) {
    assert.equal((await demo.authorize(req(name, 1))).outcome, first, `${name} first`);
    assert.equal((await demo.authorize(req(name, 2))).outcome, later, `${name} second`);
    assert.equal((await demo.authorize(req(name, 3))).outcome, later, `${name} third`);
  }
  assert.equal((await demo.authorize(req(undefined, 1))).outcome, 'success', 'no scenario plays success');
});

test('fees only on approval; the status query knows the same payment authorize would have made', async () => {
  const ok = await demo.authorize(req('success', 1));
  assert.equal(ok.fee, 20n + 25n);
  assert.match(ok.providerPaymentId!, /^demo_beta_[0-9a-f]{16}$/);
  assert.equal((await demo.authorize(req('all_fail', 1))).fee, 0n);

  assert.deepEqual(await demo.getStatus(req('timeout', 1)), { found: false });
  const recovered = await demo.getStatus(req('timeout_recovered', 1));
  assert.ok(recovered.found);
  assert.equal(recovered.outcome, 'success');
  assert.equal(recovered.fee, 45n);
  assert.equal(recovered.providerPaymentId, ok.providerPaymentId, 'keyed by the attempt id');
});
