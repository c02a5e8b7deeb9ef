// The Mollie error tables, row by row: every key is found by ruleFor where Mollie sends it, its
// failover flag is what the orchestrator does with its outcome, its category agrees with it, and
// its README prints the row as it is. Plus Mollie's amount strings and key modes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromMollieAmount, toMollieAmount } from './amounts.js';
import { CONDITIONS, ERROR_FIELDS, FAILURE_REASONS, HTTP_STATUSES, PAYMENT_STATUSES, ruleFor, type MollieRule } from './errors.js';
import { mollieProvider } from './index.js';
import { testErrorTables } from '../../../test/helpers/error-table-checks.js';

testErrorTables<MollieRule>('mollie', [
  ['status', PAYMENT_STATUSES], ['failureReason', FAILURE_REASONS], ['field', ERROR_FIELDS], ['http', HTTP_STATUSES], ['condition', CONDITIONS],
], {
  lookup(field, key, rule) {
    if (field === 'status') assert.equal(ruleFor({ status: key }), rule);
    if (field === 'failureReason') assert.equal(ruleFor({ status: 'failed', failureReason: key }), rule);
    if (field === 'field') assert.equal(ruleFor({ httpStatus: 422, field: key }), rule);
    if (field === 'http') assert.equal(ruleFor({ httpStatus: Number(key), field: 'unlisted' }), rule);
  },
});

test('mollie errors: unknown answers fall back safely', () => {
  // A failed payment with an unlisted reason is the failed row; a status that decides nothing stays open.
  assert.equal(ruleFor({ status: 'failed', failureReason: 'something_new' }), PAYMENT_STATUSES.failed);
  assert.equal(ruleFor({ status: 'open' }), CONDITIONS.pending);
  assert.equal(ruleFor({}), CONDITIONS.pending);
  // A reason on a payment that is not failed does not decide it.
  assert.equal(ruleFor({ status: 'canceled', failureReason: 'insufficient_funds' }), PAYMENT_STATUSES.canceled);
  // No answer or a gateway time-out is a time-out; an unlisted 5xx stays open; an unlisted 4xx a rejection.
  assert.equal(ruleFor({ httpStatus: 0 }), CONDITIONS.connection);
  assert.equal(ruleFor({ httpStatus: 504 }), CONDITIONS.connection);
  assert.equal(ruleFor({ httpStatus: 599 }), HTTP_STATUSES[500]);
  assert.equal(ruleFor({ httpStatus: 418 }), HTTP_STATUSES[422]);
  // A field decides only a 422.
  assert.equal(ruleFor({ httpStatus: 400, field: 'method' }), HTTP_STATUSES[400]);
});

test('mollie amounts: decimal strings with the digits Mollie expects per currency', () => {
  const cases: Array<[bigint, string, string | undefined]> = [
    [2500n, 'EUR', '25.00'], [5n, 'eur', '0.05'], [2500n, 'JPY', '2500'], [5n, 'ISK', '5'],
    // HUF is whole units for us, two decimals at Mollie.
    [5n, 'HUF', '5.00'], [100n, 'XXX', undefined], [-5n, 'EUR', undefined],
  ];
  for (const [ours, currency, value] of cases) {
    const a = toMollieAmount(ours, currency);
    assert.equal(a?.value, value, `${ours} ${currency}`);
    if (a) assert.equal(fromMollieAmount(a), ours);
  }
  assert.equal(fromMollieAmount({ currency: 'EUR', value: '-7.00' }), -700n);
  assert.equal(fromMollieAmount({ currency: 'EUR', value: 'x' }), 0n);
});

test('mollie keys: a test key on a live account (or the reverse), or no Mollie key, is refused at connect', () => {
  const mismatch = mollieProvider.modeMismatch!;
  const hooks = { webhook_base_url: 'https://pay.example.com' };
  assert.equal(mismatch({ api_key: 'test_abc', ...hooks }, 'test'), undefined);
  assert.equal(mismatch({ api_key: 'live_abc', ...hooks }, 'live'), undefined);
  assert.equal(mismatch({ api_key: 'test_abc', ...hooks }, 'live')?.[0], 'api_key');
  assert.equal(mismatch({ api_key: 'live_abc', ...hooks }, 'test')?.[0], 'api_key');
  assert.equal(mismatch({ api_key: 'access_abc', ...hooks }, 'live')?.[0], 'api_key');
  assert.equal(mismatch({ api_key: 'live_abc', webhook_base_url: 'pay.example.com' }, 'live')?.[0], 'webhook_base_url');
  assert.equal(mismatch({ api_key: 'live_abc', webhook_base_url: 'https://u:p@pay.example.com' }, 'live')?.[0], 'webhook_base_url');
});
