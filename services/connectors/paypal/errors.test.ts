// The PayPal error tables, row by row: every issue and name is found by ruleFor where PayPal sends
// it, its failover flag is what the orchestrator does with its outcome, its category agrees with it,
// and its README prints the row as it is. Plus PayPal's amounts and its environment check.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromPayPalValue, toPayPalValue } from './amounts.js';
import { CONDITIONS, HTTP_STATUSES, ISSUES, NAMES, ruleFor, type PayPalRule } from './errors.js';
import { paypalProvider } from './index.js';
import { describeError } from './outcomes.js';
import { testErrorTables } from '../../../test/helpers/error-table-checks.js';

/** The HTTP status PayPal sends each error name with. */
const NAME_STATUS: Record<string, number> = {
  INVALID_REQUEST: 400, AUTHENTICATION_FAILURE: 401, invalid_client: 401, NOT_AUTHORIZED: 403, RESOURCE_NOT_FOUND: 404,
  UNPROCESSABLE_ENTITY: 422, INTERNAL_SERVER_ERROR: 500, SERVICE_UNAVAILABLE: 503,
};

testErrorTables<PayPalRule>('paypal', [
  ['issue', ISSUES], ['name', NAMES], ['status', HTTP_STATUSES], ['condition', CONDITIONS],
], {
  lookup(field, key, rule) {
    if (field === 'issue') assert.equal(ruleFor({ status: 422, name: 'UNPROCESSABLE_ENTITY', issue: key }), rule);
    if (field === 'name') {
      assert.ok(NAME_STATUS[key], `no status for ${key}`);
      assert.equal(ruleFor({ status: NAME_STATUS[key], name: key }), rule);
    }
    if (field === 'status') assert.equal(ruleFor({ status: Number(key), name: 'unlisted' }), rule);
  },
});

test('paypal errors: unknown answers fall back safely', () => {
  // No answer is a time-out; an unlisted 5xx stays open whatever it names; an unlisted 4xx is a rejection.
  assert.equal(ruleFor({ status: 0 }), CONDITIONS.connection);
  assert.equal(ruleFor({ status: 408 }), CONDITIONS.connection);
  assert.equal(ruleFor({ status: 504, name: 'INVALID_REQUEST' }), HTTP_STATUSES[500]);
  assert.equal(ruleFor({ status: 418 }), HTTP_STATUSES[422]);
  assert.equal(ruleFor({ status: 422, name: 'UNPROCESSABLE_ENTITY', issue: 'SOMETHING_NEW' }), NAMES.UNPROCESSABLE_ENTITY);
});

test('paypal errors: the SDK\'s errors are read by issue, then name, and an unreadable answer stays open', () => {
  const apiError = Object.assign(new Error('x'), {
    statusCode: 422, body: '', result: { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'INSTRUMENT_DECLINED', description: 'declined by processor' }] },
  });
  assert.deepEqual(describeError(apiError), { rule: ISSUES.INSTRUMENT_DECLINED, code: 'INSTRUMENT_DECLINED', message: 'declined by processor', issue: 'INSTRUMENT_DECLINED' });
  const oauth = Object.assign(new Error('x'), { statusCode: 401, body: JSON.stringify({ error: 'invalid_client', error_description: 'Client Authentication failed' }) });
  assert.equal(describeError(oauth).rule, NAMES.invalid_client);
  assert.equal(describeError(Object.assign(new Error('x'), { statusCode: 201, body: '{}', errors: [{}] })).rule, CONDITIONS.unreadable);
  assert.equal(describeError(Object.assign(new Error('The HTTP call was aborted.'), {})).rule, CONDITIONS.connection);
});

test('paypal amounts: decimal strings as PayPal expects them per currency', () => {
  const cases: Array<[bigint, string, string | undefined]> = [
    [2500n, 'EUR', '25.00'], [5n, 'usd', '0.05'], [500n, 'JPY', '500'], [12n, 'HUF', '12'],
    // TWD has two digits for us and none at PayPal: only whole dollars can be sent.
    [1200n, 'TWD', '12'], [1250n, 'TWD', undefined], [100n, 'KWD', undefined], [100n, 'XXX', undefined],
  ];
  for (const [ours, currency, theirs] of cases) {
    assert.equal(toPayPalValue(ours, currency), theirs, `${ours} ${currency}`);
    if (theirs !== undefined) assert.equal(fromPayPalValue(theirs, currency), ours);
  }
});

test('paypal credentials: an environment that disagrees with the account\'s mode is refused at connect', () => {
  const mismatch = paypalProvider.modeMismatch!;
  assert.equal(mismatch({ environment: 'sandbox' }, 'test'), undefined);
  assert.equal(mismatch({ environment: 'live' }, 'live'), undefined);
  assert.equal(mismatch({}, 'live'), undefined);
  assert.equal(mismatch({ environment: 'sandbox' }, 'live')?.[0], 'environment');
  assert.equal(mismatch({ environment: 'live' }, 'test')?.[0], 'environment');
  assert.equal(mismatch({ environment: 'production' }, 'live')?.[0], 'environment');
});
