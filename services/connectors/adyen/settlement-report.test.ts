import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readAdyenSettlementReport } from './settlement-report.js';

const HEADER = 'Company Account,Merchant Account,Psp Reference,Merchant Reference,Payment Method,Creation Date,TimeZone,Type,' +
  'Modification Reference,Gross Currency,Gross Debit (GC),Gross Credit (GC),Exchange Rate,Net Currency,Net Debit (NC),' +
  'Net Credit (NC),Commission (NC),Markup (NC),Scheme Fees (NC),Interchange (NC),Payment Method Variant,' +
  'Modification Merchant Reference,Batch Number';
const report = (...lines: string[]) => [HEADER, ...lines].join('\r\n');

test('Settled, Refunded, Fee and MerchantPayout lines make one batch per batch number and currency', () => {
  const read = readAdyenSettlementReport(report(
    'Acme,AcmeECOM,8535296650153317,att_1,visa,2024-05-02 09:15:00,CEST,Settled,8835296650153318,EUR,,100.00,1,EUR,,98.50,1.50,,,,visa,,12',
    'Acme,AcmeECOM,8535296650153317,att_1,visa,2024-05-02 12:00:00,CEST,Refunded,8835296650153319,EUR,20.00,,1,EUR,20.00,,,,,,visa,rf_1,12',
    'Acme,AcmeECOM,,,,2024-05-03 04:55:40,CEST,Fee,Transaction Fees,,,,,EUR,0.12,,,,,,,,12',
    'Acme,AcmeECOM,7735296650153320,att_2,mc,2024-05-02 10:00:00,CEST,Settled,8835296650153321,JPY,,500,1,JPY,,490,,4,3,3,mc,,12',
    'Acme,AcmeECOM,,,,2024-05-03 05:00:00,CEST,MerchantPayout,TX1XT,,,,,EUR,78.38,,,,,,,,12',
  ), 'AcmeECOM');
  assert.ok(read.ok, read.ok ? '' : read.message);
  const [eur, jpy] = read.settlements;
  assert.deepEqual([eur.reference, jpy.reference], ['12/EUR', '12/JPY'], 'a batch in two currencies is two settlements');
  assert.deepEqual(eur.items, [
    { type: 'payment', attemptId: 'att_1', providerReference: '8535296650153317', amount: 10000n, fee: 150n },
    { type: 'refund', refundId: 'rf_1', providerReference: '8835296650153319', amount: -2000n, fee: 0n },
  ]);
  assert.deepEqual(eur.fees, [{ amount: 12n, description: 'Fee: Transaction Fees' }]);
  assert.equal(eur.settlementEntity, 'Acme');
  assert.equal(eur.periodStart.toISOString(), '2024-05-02T07:15:00.000Z');
  assert.equal(eur.settledAt!.toISOString(), '2024-05-03T03:00:00.000Z');
  assert.deepEqual(jpy.items.map((i) => [i.amount, i.fee]), [[500n, 10n]]);
});

test('a RefundedReversed line credits back a failed refund, named like the refund, settling its reversal', () => {
  const read = readAdyenSettlementReport(report(
    'Acme,AcmeECOM,8535296650153317,att_1,visa,2024-05-09 12:00:00,CET,RefundedReversed,8835296650153319,EUR,,20.00,1,EUR,,20.00,,,,,visa,rf_1,13',
  ), 'AcmeECOM');
  assert.ok(read.ok, read.ok ? '' : read.message);
  assert.deepEqual(read.settlements[0].items, [
    { type: 'refund_reversal', refundId: 'rf_1', providerReference: '8835296650153319', amount: 2000n, fee: 0n },
  ]);
  const debit = readAdyenSettlementReport(report(
    'Acme,AcmeECOM,8535296650153317,att_1,visa,2024-05-09 12:00:00,CET,RefundedReversed,8835296650153319,EUR,20.00,,1,EUR,20.00,,,,,,visa,rf_1,13',
  ), 'AcmeECOM');
  assert.ok(!debit.ok);
  assert.deepEqual([debit.line, debit.column], [2, 'Gross Credit (GC)'], debit.message);
});

test('Chargeback, ChargebackReversed and SecondChargeback lines are dispute items, named by the dispute and its payment', () => {
  const read = readAdyenSettlementReport(report(
    'Acme,AcmeECOM,8535296650153317,att_1,visa,2024-05-09 10:00:00,CET,Chargeback,9915555555555555,EUR,25.00,,1,EUR,27.00,,2.00,,,,visa,,14',
    'Acme,AcmeECOM,8535296650153317,att_1,visa,2024-05-20 10:00:00,CET,ChargebackReversed,9915555555555555,EUR,,25.00,1,EUR,,25.00,,,,,visa,,14',
    'Acme,AcmeECOM,8535296650153317,att_1,visa,2024-05-28 10:00:00,CET,SecondChargeback,9915555555555555,EUR,25.00,,1,EUR,25.00,,,,,,visa,,14',
    'Acme,AcmeECOM,,,,2024-05-29 04:55:40,CET,Fee,Chargeback Fees,,,,,EUR,1.50,,,,,,,,14',
  ), 'AcmeECOM');
  assert.ok(read.ok, read.ok ? '' : read.message);
  const [s] = read.settlements;
  const named = { providerReference: '9915555555555555', paymentReference: '8535296650153317' };
  assert.deepEqual(s.items, [
    // The chargeback's costs (here Commission) are its fee: the net debit is the amount and the fee.
    { type: 'dispute', ...named, amount: -2500n, fee: 200n },
    { type: 'dispute_reversal', ...named, amount: 2500n, fee: 0n },
    { type: 'dispute', ...named, amount: -2500n, fee: 0n },
  ]);
  assert.deepEqual(s.fees, [{ amount: 150n, description: 'Fee: Chargeback Fees' }], 'a fee booked on its own line is the batch\'s');
});

test('malformed lines are named by line and column', () => {
  const line = (over: Record<number, string>) => {
    const f = 'Acme,AcmeECOM,8535296650153317,att_1,visa,2024-05-02 09:15:00,CET,Settled,8835296650153318,EUR,,100.00,1,EUR,,98.50,1.50,,,,visa,,12'.split(',');
    for (const [i, v] of Object.entries(over)) f[Number(i)] = v;
    return f.join(',');
  };
  const cases: Array<[string, number | null, string | null]> = [
    [report(line({ 15: '98.40' })), 2, 'Net Credit (NC)'],
    [report(line({ 11: '1.005' })), 2, 'Gross Credit (GC)'],
    [report(line({ 5: '02/05/2024 09:15' })), 2, 'Creation Date'],
    [report(line({ 6: 'XYZT' })), 2, 'TimeZone'],
    [report(line({ 22: 'twelve' })), 2, 'Batch Number'],
    [report(line({ 13: 'USD' })), 2, 'Net Currency'],
    [report(line({}), line({ 7: 'ManualCorrected' })), 3, 'Type'],
    [report(line({ 7: 'Chargeback' })), 2, 'Gross Debit (GC)'],
    [report(line({ 2: '', 7: 'ChargebackReversed', 8: '' })), 2, 'Psp Reference'],
    [report(line({ 1: 'Other' })), 2, 'Merchant Account'],
    [report(), null, null],
    ['', null, null],
    [report(line({}), '"open'), 3, null],
  ];
  for (const [text, lineNo, column] of cases) {
    const read = readAdyenSettlementReport(text, 'AcmeECOM');
    assert.ok(!read.ok, text);
    assert.deepEqual([read.line, read.column], [lineNo, column], read.message);
  }
});
