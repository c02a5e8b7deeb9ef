// The Adyen error tables, row by row: every Adyen code is found by ruleFor where Adyen sends it, its
// failover flag is what the orchestrator does with its outcome, its category agrees with it, and
// its README prints the row as it is. Plus Adyen's currency digits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromAdyenAmount, toAdyenAmount } from './amounts.js';
import { CONDITIONS, ERROR_CODES, HTTP_STATUSES, REFUSAL_REASONS, RESULT_CODES, ruleFor, type AdyenRule } from './errors.js';
import { testErrorTables } from '../../../test/helpers/error-table-checks.js';

testErrorTables<AdyenRule>('adyen', [
  ['refusalReasonCode', REFUSAL_REASONS], ['resultCode', RESULT_CODES], ['errorCode', ERROR_CODES],
  ['status', HTTP_STATUSES], ['condition', CONDITIONS],
], {
  // The lookup finds the row by the field Adyen sends it in.
  lookup(field, key, rule) {
    if (field === 'refusalReasonCode') {
      assert.equal(ruleFor({ resultCode: 'Refused', refusalReasonCode: key, refusalReason: rule.reason }), rule);
      // A notification carries only the refusalReason text.
      assert.equal(ruleFor({ resultCode: 'Refused', refusalReason: rule.reason }), rule);
    }
    if (field === 'resultCode') assert.equal(ruleFor({ resultCode: key }), rule);
    if (field === 'errorCode') assert.equal(ruleFor({ status: 422, errorCode: key }), rule);
    if (field === 'status') assert.equal(ruleFor({ status: Number(key), errorCode: 'unlisted' }), rule);
  },
  // A refusal's row names Adyen's refusalReason beside its code.
  keyCell: (field, key, rule) => (field === 'refusalReasonCode' ? `\`${key}\` ${rule.reason}` : undefined),
});

test('adyen errors: unknown codes fall back safely', () => {
  // A refusal nobody lists is a generic soft decline; an unknown result or 5xx stays open.
  assert.equal(ruleFor({ resultCode: 'Refused', refusalReasonCode: '99' }), REFUSAL_REASONS[2]);
  assert.equal(ruleFor({ resultCode: 'SomethingNew' }).outcome, 'unknown');
  assert.equal(ruleFor({ status: 500, errorCode: '000' }), HTTP_STATUSES[500]);
  assert.equal(ruleFor({ status: 418 }), HTTP_STATUSES[422]);
  assert.equal(ruleFor({ status: 599 }), HTTP_STATUSES[500]);
  // Adyen's Transient-Error header: retry with the key, whatever the code.
  assert.equal(ruleFor({ status: 422, errorCode: '101', transient: true }), CONDITIONS.transient);
});

test('adyen amounts: minor units as Adyen expects them per currency', () => {
  const cases: Array<[bigint, string, bigint | undefined]> = [
    [1050n, 'EUR', 1050n], [1050n, 'eur', 1050n], [500n, 'JPY', 500n], [500n, 'KRW', 500n],
    // Adyen's differences from the standard: CLP and ISK two decimals, CVE and IDR none.
    [5n, 'ISK', 500n], [500n, 'CLP', 50000n], [15000n, 'IDR', 15000n], [1050n, 'CVE', undefined], [1000n, 'CVE', 10n],
    // HUF is whole units for us, two decimals at Adyen; KWD three for both.
    [5n, 'HUF', 500n], [5125n, 'KWD', 5125n],
    [100n, 'XXX', undefined],
  ];
  for (const [ours, currency, theirs] of cases) {
    assert.equal(toAdyenAmount(ours, currency), theirs, `${ours} ${currency}`);
    if (theirs !== undefined) assert.equal(fromAdyenAmount(Number(theirs), currency), ours);
  }
});
