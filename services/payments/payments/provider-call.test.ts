import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextStep } from './attempt-outcomes.js';
import { callProvider, type ProviderCall } from './provider-call.js';
import type { AuthorizeRequest, AuthorizeResult, Connector, PaymentStatusResult } from '../../connectors/index.js';

const account = { providerCode: 'lic_x', id: 'pac_x', feeFixed: 10n, feeBps: 100, latencyMs: 0 };
const req: ProviderCall = {
  paymentId: 'pay_1', attemptId: 'att_1', attemptNumber: 1, amount: 1000n, currency: 'EUR', methodType: 'card',
  captureMethod: 'automatic', account,
};
const approved: AuthorizeResult = { outcome: 'success', providerPaymentId: 'x_1', providerCode: 'approved', providerMessage: 'OK', fee: 20n };
const never = () => new Promise<never>(() => {});

/** A connector whose calls are scripted; counts how often each is made. */
function fake(authorize: (r: AuthorizeRequest) => Promise<AuthorizeResult>, getStatus?: (r: AuthorizeRequest) => Promise<PaymentStatusResult>) {
  const calls = { authorize: 0, getStatus: 0, signals: [] as AbortSignal[] };
  const connector: Connector = {
    authorize: (r) => { calls.authorize++; calls.signals.push(r.signal!); return authorize(r); },
    getStatus: (r) => { calls.getStatus++; return getStatus ? getStatus(r) : Promise.reject(new Error('no status')); },
  } as Connector;
  return { connector, calls };
}

test('a definite answer is taken as is, with no status query, and a fee only on success', async () => {
  const ok = fake(async () => approved);
  const a = await callProvider(ok.connector, req, 1000);
  assert.deepEqual(a.result, approved);
  assert.equal(a.statusQuery, undefined);
  assert.equal(ok.calls.getStatus, 0);
  assert.ok(ok.calls.signals[0] instanceof AbortSignal, 'the connector gets the deadline signal');

  const declined = fake(async () => ({ ...approved, outcome: 'soft_decline', fee: 5n }));
  assert.equal((await callProvider(declined.connector, req, 1000)).result.fee, 0n);
});

test('a real deadline: the provider that never answers is asked, and "never received" is a plain time-out', async () => {
  const { connector, calls } = fake(never, async () => ({ found: false }));
  const a = await callProvider(connector, req, 30);
  assert.equal(a.result.outcome, 'timeout');
  assert.equal(calls.signals[0].aborted, true);
  assert.equal(calls.getStatus, 1);
  assert.deepEqual({ found: a.statusQuery!.found, outcome: a.statusQuery!.outcome }, { found: false, outcome: null });
  assert.equal(nextStep(a.result.outcome, true), 'fail_over');
});

test('a time-out whose status query shows an approval is a success, charged once', async () => {
  const { connector } = fake(async () => ({ ...approved, outcome: 'timeout', providerPaymentId: null, fee: 0n }), async () => ({ found: true, ...approved }));
  const a = await callProvider(connector, req, 1000);
  assert.deepEqual(a.result, approved);
  assert.equal(a.statusQuery!.outcome, 'success');
});

test('a failed call or a status still open leaves the attempt unknown, which never fails over', async () => {
  const cases: Array<[string, Connector]> = [
    ['query fails', fake(async () => { throw new Error('socket hang up'); }).connector],
    ['query times out', fake(never, never).connector],
    ['provider still undecided', fake(never, async () => ({ found: true, ...approved, outcome: 'unknown', fee: 0n })).connector],
  ];
  for (const [name, connector] of cases) {
    const a = await callProvider(connector, req, 30);
    assert.equal(a.result.outcome, 'unknown', name);
    assert.equal(a.result.fee, 0n, name);
    assert.equal(nextStep(a.result.outcome, true), 'await_provider', name);
  }
});

test('no connector for the provider: unavailable, nothing was sent', async () => {
  const a = await callProvider(undefined, req, 1000);
  assert.equal(a.result.outcome, 'provider_unavailable');
});
