import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatMoney } from './money.js';

test('money reads in major units with its currency', () => {
  assert.equal(formatMoney(520n, 'EUR'), '5.20 EUR');
  assert.equal(formatMoney(5, 'USD'), '0.05 USD');
  assert.equal(formatMoney(-1313n, 'EUR'), '-13.13 EUR');
  assert.equal(formatMoney(500n, 'JPY'), '500 JPY');
  assert.equal(formatMoney(1234n, 'KWD'), '1.234 KWD');
  assert.equal(formatMoney(520n, 'ZZZ'), '520 ZZZ (minor units)');
});

test('decimal amounts in major units become exact minor units per currency', async () => {
  const { parseMajorAmount } = await import('./money.js');
  assert.equal(parseMajorAmount('25.00', 'EUR'), 2500n);
  assert.equal(parseMajorAmount('0.1', 'EUR'), 10n);
  assert.equal(parseMajorAmount('-3', 'EUR'), -300n);
  assert.equal(parseMajorAmount('500', 'JPY'), 500n);
  assert.equal(parseMajorAmount('1000.00', 'ISK'), 1000n);
  assert.equal(parseMajorAmount('1.234', 'KWD'), 1234n);
  assert.equal(parseMajorAmount(' 7.50 ', 'USD'), 750n);
  assert.equal(parseMajorAmount('1.005', 'EUR'), undefined, 'never rounded');
  assert.equal(parseMajorAmount('1.5', 'JPY'), undefined);
  assert.equal(parseMajorAmount('1,50', 'EUR'), undefined);
  assert.equal(parseMajorAmount('', 'EUR'), undefined);
  assert.equal(parseMajorAmount('1e3', 'EUR'), undefined);
  assert.equal(parseMajorAmount('10', 'ZZZ'), undefined);
});

test('an amount crosses to and from JSON only as a whole number a double holds exactly', async () => {
  const { minorFromColumn, minorFromJson, minorToJson } = await import('./money.js');
  assert.equal(minorFromJson(2500), 2500n);
  assert.equal(minorFromJson(-1313), -1313n);
  assert.equal(minorFromJson(Number.MAX_SAFE_INTEGER), 9007199254740991n);
  for (const bad of [1.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN, Infinity]) assert.throws(() => minorFromJson(bad), RangeError, String(bad));
  assert.equal(minorToJson(2500n), 2500);
  assert.equal(minorToJson(-9007199254740991n), -Number.MAX_SAFE_INTEGER);
  // 2^53 + 1 would be written as 2^53: another amount.
  assert.throws(() => minorToJson(9007199254740993n), RangeError);
  assert.throws(() => minorToJson(-9007199254740992n), RangeError);
  // node-postgres hands a bigint column over as text, beyond a double's range too.
  assert.equal(minorFromColumn('9223372036854775807'), 9223372036854775807n);
  assert.equal(minorFromColumn('-700'), -700n);
  assert.equal(minorFromColumn(42), 42n);
  assert.throws(() => minorFromColumn('12.5'), SyntaxError);
});
