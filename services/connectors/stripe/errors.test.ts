// The Stripe error table, row by row: every Stripe code is found by ruleFor, its failover flag is
// what the orchestrator does with its outcome, its category agrees with it, and its README
// prints the row as it is. Plus the amount rule for Stripe's special currencies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testErrorTables } from '../../../test/helpers/error-table-checks.js';
import { fromStripeAmount, toStripeAmount } from './amounts.js';
import { CONDITIONS, DECLINE_CODES, ERROR_CODES, ERROR_TYPES, ruleFor } from './errors.js';

testErrorTables('stripe', [
  ['decline_code', DECLINE_CODES], ['code', ERROR_CODES], ['type', ERROR_TYPES], ['condition', CONDITIONS],
], {
  // The lookup finds the row by the field Stripe sends it in.
  lookup(field, key, rule) {
    if (field === 'decline_code') assert.equal(ruleFor({ type: 'StripeCardError', code: 'card_declined', decline_code: key }), rule);
    if (field === 'code') assert.equal(ruleFor({ type: 'StripeInvalidRequestError', code: key }), rule);
    if (field === 'type') assert.equal(ruleFor({ type: key }), rule);
  },
});

test('stripe errors: an unknown decline_code falls back to its code, an unknown card error to a generic soft decline', () => {
  assert.equal(ruleFor({ type: 'StripeCardError', code: 'expired_card', decline_code: 'brand_new_code' }), ERROR_CODES.expired_card);
  assert.equal(ruleFor({ type: 'card_error', code: 'brand_new_code' }), ERROR_CODES.card_declined);
  assert.equal(ruleFor({ type: 'invalid_request_error' }), ERROR_TYPES.StripeInvalidRequestError);
  // An error nobody knows may have charged: open, never failed over.
  assert.equal(ruleFor({}).outcome, 'unknown');
});

test('stripe amounts: minor units as Stripe expects them per currency', () => {
  const cases: Array<[bigint, string, bigint | undefined]> = [
    [1050n, 'EUR', 1050n], [1050n, 'eur', 1050n], [500n, 'JPY', 500n], [500n, 'KRW', 500n],
    // Whole units for us; two decimals always 00 for Stripe (special cases ISK and UGX; HUF charges two decimals).
    [5n, 'ISK', 500n], [5n, 'UGX', 500n], [5n, 'HUF', 500n], [1050n, 'TWD', 1050n],
    // Three decimals with the last digit 0, else refused rather than rounded.
    [5120n, 'KWD', 5120n], [5124n, 'KWD', undefined], [5120n, 'BHD', 5120n],
    // Three decimals for us (LYD), two for Stripe: exact or refused.
    [5120n, 'LYD', 512n], [5125n, 'LYD', undefined],
    [100n, 'XXX', undefined],
  ];
  for (const [ours, currency, theirs] of cases) {
    assert.equal(toStripeAmount(ours, currency), theirs, `${ours} ${currency}`);
    if (theirs !== undefined) assert.equal(fromStripeAmount(Number(theirs), currency), ours);
  }
});
