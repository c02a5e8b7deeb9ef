import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findCardData, looksLikeCardNumber, passesLuhn } from './card-data.js';

test('Luhn', () => {
  assert.equal(passesLuhn('4242424242424242'), true);
  assert.equal(passesLuhn('4242424242424241'), false);
  assert.equal(passesLuhn('79927398713'), true);
});

test('card-number shapes: 13 to 19 digits, grouped or not, passing Luhn', () => {
  for (const v of ['4242424242424242', '4242 4242 4242 4242', '4242-4242-4242-4242', '378282246310005', '6011111111111117']) {
    assert.equal(looksLikeCardNumber(v), true, v);
  }
  for (const v of ['4242424242424241', '424242424242', '12345', 'order 4242424242424242', '42424242424242424242']) {
    assert.equal(looksLikeCardNumber(v), false, v);
  }
});

test('card data is found by field name or by value, anywhere, and reported by path', () => {
  assert.equal(findCardData({ amount: 10, card_number: 'x' }), 'card_number');
  assert.equal(findCardData({ payment_method: { type: 'card', cvv: '123' } }), 'payment_method.cvv');
  assert.equal(findCardData({ metadata: { note: '4242424242424242' } }), 'metadata.note');
  assert.equal(findCardData({ metadata: { n: 4242424242424242 } }), 'metadata.n');
  assert.equal(findCardData({ list: ['a', '4000 0566 5566 5556'] }), 'list.1');
  assert.equal(findCardData({ amount: 1000, currency: 'EUR', reference: 'order_1234567890123' }), undefined);
  assert.equal(findCardData({ amount: 9007199254740991 }), undefined);
});
