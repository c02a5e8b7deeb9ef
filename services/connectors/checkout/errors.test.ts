// The Checkout.com error tables, row by row: every code is found by ruleFor where Checkout.com sends
// it, its failover flag is what the orchestrator does with its outcome, its category agrees with it,
// and its README prints the row as it is. Plus Checkout.com's currency digits and key modes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromCheckoutAmount, toCheckoutAmount } from './amounts.js';
import { CONDITIONS, ERROR_CODES, HTTP_STATUSES, RESPONSE_CODES, ruleFor, type CheckoutRule } from './errors.js';
import { checkoutProvider } from './index.js';
import { testErrorTables } from '../../../test/helpers/error-table-checks.js';

testErrorTables<CheckoutRule>('checkout', [
  ['response_code', RESPONSE_CODES], ['error_codes', ERROR_CODES], ['status', HTTP_STATUSES], ['condition', CONDITIONS],
], {
  lookup(field, key, rule) {
    if (field === 'response_code') assert.equal(ruleFor({ responseCode: key }), rule);
    if (field === 'error_codes') assert.equal(ruleFor({ status: 422, errorCode: key }), rule);
    if (field === 'status') assert.equal(ruleFor({ status: Number(key), errorCode: 'unlisted' }), rule);
  },
});

test('checkout errors: unknown codes fall back safely', () => {
  // An unlisted 20xxx is a generic soft decline, 30xxx hard, 4xxxx a risk refusal.
  assert.equal(ruleFor({ responseCode: '20099' }), CONDITIONS.declined);
  assert.equal(ruleFor({ responseCode: '30099' }).outcome, 'hard_decline');
  assert.equal(ruleFor({ responseCode: '41000' }), RESPONSE_CODES[40101]);
  assert.equal(ruleFor({}), CONDITIONS.declined);
  // No answer or a time-out is a time-out; an unlisted 5xx stays open; an unlisted 4xx a rejection.
  assert.equal(ruleFor({ status: 0 }), CONDITIONS.connection);
  assert.equal(ruleFor({ status: 408 }), CONDITIONS.connection);
  assert.equal(ruleFor({ status: 504 }), HTTP_STATUSES[500]);
  assert.equal(ruleFor({ status: 418 }), HTTP_STATUSES[422]);
});

test('checkout amounts: minor units as Checkout.com expects them per currency', () => {
  const cases: Array<[bigint, string, bigint | undefined]> = [
    [1050n, 'EUR', 1050n], [1050n, 'eur', 1050n], [500n, 'JPY', 500n], [500n, 'KRW', 500n],
    // ISK and UGX are full values at Checkout.com; HUF is whole units for us, two decimals there.
    [5n, 'ISK', 5n], [5n, 'HUF', 500n], [5125n, 'KWD', 5125n], [5n, 'UGX', 5n],
    [100n, 'XXX', undefined],
  ];
  for (const [ours, currency, theirs] of cases) {
    assert.equal(toCheckoutAmount(ours, currency), theirs, `${ours} ${currency}`);
    if (theirs !== undefined) assert.equal(fromCheckoutAmount(Number(theirs), currency), ours);
  }
});

test('checkout keys: a sandbox key on a live account (or the reverse) is refused at connect', () => {
  const mismatch = checkoutProvider.modeMismatch!;
  assert.equal(mismatch({ secret_key: 'sk_sbox_abc' }, 'test'), undefined);
  assert.equal(mismatch({ secret_key: 'sk_abc' }, 'live'), undefined);
  assert.deepEqual(mismatch({ secret_key: 'sk_sbox_abc' }, 'live')?.[0], 'secret_key');
  assert.deepEqual(mismatch({ secret_key: 'sk_abc' }, 'test')?.[0], 'secret_key');
  assert.equal(mismatch({ secret_key: 'something else' }, 'live'), undefined);
});
