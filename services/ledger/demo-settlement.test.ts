import assert from 'node:assert/strict';
import { test } from 'node:test';
import { demoReports } from './demo-settlement.js';
import { reportProblem } from './settlements.js';
import type { TransactionRecord } from './movements.js';

const DAY = 86_400_000;
const asOf = new Date('2026-03-10T12:00:00.000Z');

function txn(id: string, fields: Partial<TransactionRecord>): TransactionRecord {
  return {
    id, scope: { merchantId: 'mer_1', projectId: 'prj_1', mode: 'test' }, type: 'payment', status: 'successful',
    entityType: 'payment', entityId: id.replace('txn', 'pay'), paymentId: null, amount: 1000n, currency: 'EUR', feeAmount: 30n,
    netAmount: 970n, providerName: 'Demo Alpha', providerAccountId: 'pac_demo_alpha', providerReference: null, paymentMethod: 'card',
    country: null, processingTimeMs: null, failureCode: null, settlementId: null,
    occurredAt: new Date(asOf.getTime() - 2 * DAY), ...fields,
  };
}

test('one settled batch per scope, provider account and currency, of the movements older than the cut-off', () => {
  const reports = demoReports([
    txn('txn_1', {}),
    txn('txn_2', { type: 'refund', entityType: 'refund', amount: -400n, feeAmount: 0n }),
    txn('txn_3', { currency: 'USD' }),
    txn('txn_4', { providerAccountId: 'pac_demo_beta', providerName: 'Demo Beta', amount: 5000n, feeAmount: 145n }),
    txn('txn_5', { occurredAt: new Date(asOf.getTime() - DAY + 1) }),
    txn('txn_6', { status: 'failed' }),
    txn('txn_7', { settlementId: 'stl_1' }),
    txn('txn_8', { scope: { merchantId: 'mer_1', projectId: 'prj_1', mode: 'live' } }),
    txn('txn_9', { scope: { merchantId: 'mer_2', projectId: 'prj_2', mode: 'test' } }),
  ], asOf, DAY);
  assert.equal(reports.length, 4, 'EUR and USD at Alpha, EUR at Beta, and the other merchant\'s');
  for (const r of reports) {
    assert.equal(reportProblem(r), undefined, 'the report is consistent');
    assert.equal(r.status, 'settled');
    assert.equal(r.settledAt, asOf);
    assert.equal(r.periodEnd.getTime(), asOf.getTime() - DAY);
  }
  const alphaEur = reports.find((r) => r.providerAccountId === 'pac_demo_alpha' && r.currency === 'EUR' && r.scope.merchantId === 'mer_1')!;
  assert.deepEqual(alphaEur.items.map((i) => i.entityId), ['pay_1', 'pay_2']);
  assert.deepEqual([alphaEur.grossAmount, alphaEur.feeAmount, alphaEur.netAmount], [600n, 30n, 570n]);
  const beta = reports.find((r) => r.providerAccountId === 'pac_demo_beta')!;
  assert.deepEqual(beta.fees, [{ amount: 10n, description: 'Settlement fee' }], 'Demo Beta charges per batch');
  assert.deepEqual([beta.grossAmount, beta.feeAmount, beta.netAmount], [5000n, 155n, 4845n]);
});

test('the same movements give the same reference, so a batch reported twice is one settlement', () => {
  const movements = [txn('txn_1', {}), txn('txn_2', {})];
  const [a] = demoReports(movements, asOf, DAY);
  const [b] = demoReports([...movements].reverse(), new Date(asOf.getTime() + 1000), DAY);
  assert.equal(a.reference, b.reference);
  const [c] = demoReports([movements[0]], asOf, DAY);
  assert.notEqual(a.reference, c.reference);
});

test('a report whose totals disagree with its items is refused, naming the field', () => {
  const [r] = demoReports([txn('txn_1', {})], asOf, DAY);
  assert.deepEqual(reportProblem({ ...r, netAmount: r.netAmount + 1n })?.[0], 'net_amount');
  assert.deepEqual(reportProblem({ ...r, feeAmount: r.feeAmount + 1n })?.[0], 'fee_amount');
  assert.deepEqual(reportProblem({ ...r, status: 'paid' as never })?.[0], 'status');
  assert.deepEqual(reportProblem({ ...r, items: [{ type: 'refund', entityId: 'rf_1', amount: 5n, feeAmount: 0n }] })?.[0], 'items[0].amount');
  assert.deepEqual(reportProblem({ ...r, items: [], fees: [] })?.[0], 'items');
});

test('a sandbox dispute\'s withdrawals and reinstatement are settled with the batch, as dispute items', () => {
  const dispute = { entityType: 'dispute', entityId: 'dp_1', paymentId: 'pay_1' } as const;
  const [r] = demoReports([
    txn('txn_1', {}),
    txn('txn_2', { ...dispute, type: 'dispute', amount: -1000n, feeAmount: 1500n }),
    txn('txn_3', { ...dispute, type: 'dispute_reversal', amount: 1000n, feeAmount: 0n }),
    txn('txn_4', { ...dispute, type: 'dispute', amount: -1000n, feeAmount: 0n }),
  ], asOf, DAY);
  assert.equal(reportProblem(r), undefined);
  assert.deepEqual(r.items.map((i) => [i.type, i.entityId, i.amount]), [
    ['payment', 'pay_1', 1000n], ['dispute', 'dp_1', -1000n], ['dispute_reversal', 'dp_1', 1000n], ['dispute', 'dp_1', -1000n],
  ]);
  assert.deepEqual([r.grossAmount, r.feeAmount, r.netAmount], [0n, 1530n, -1530n], 'the provider collects what it took back');
  assert.deepEqual(
    reportProblem({ ...r, items: [{ type: 'dispute', entityId: 'dp_1', amount: 5n, feeAmount: 0n }], grossAmount: 5n, feeAmount: 0n, netAmount: 5n })?.[0],
    'items[0].amount', 'a withdrawal is negative',
  );
});
