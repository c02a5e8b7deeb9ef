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
