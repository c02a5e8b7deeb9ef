import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  containsCardNumber, findCardData, isCardFieldName, looksLikeCardNumber, passesLuhn,
} from '../../services/contract/card-data.js';
import { DomainError } from '../../services/contract/errors.js';
import { refuseCardData } from './card-data.js';

// The detector lives in services/contract/card-data.ts; the gateway's hook refuses with it.

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

test('a card number inside text, in every separator and digit form a person could type or paste', () => {
  const forms = [
    'Card 4242 4242 4242 4242 exp 12/29 cvv 123', 'card:4242424242424242', 'x4242424242424242y',
    '4242.4242.4242.4242', '4242/4242/4242/4242', '4242_4242_4242_4242', '4242\t4242\t4242\t4242',
    '4242\n4242\r\n4242\n4242', '4242\u00a04242\u00a04242\u00a04242', '4242\u202f4242\u20094242\u30004242',
    '4242\u200b4242\u200b4242\u200b4242', '4242 \u2013 4242 \u2013 4242 \u2013 4242',
    '\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12', // full-width
    '\u0664\u0662\u0664\u0662\u0664\u0662\u0664\u0662\u0664\u0662\u0664\u0662\u0664\u0662\u0664\u0662', // Arabic-Indic
    '\u096a\u0968\u096a\u0968 \u096a\u0968\u096a\u0968 \u096a\u0968\u096a\u0968 \u096a\u0968\u096a\u0968', // Devanagari
    '\u{1d7d2}\u{1d7d0}\u{1d7d2}\u{1d7d0}424242424242', // mathematical bold digits, then ASCII
    '4 2 4 2 4 2 4 2 4 2 4 2 4 2 4 2', '3782 822463 10005', 'ref 12345678901234567890 then 5555555555554444',
  ];
  for (const v of forms) assert.equal(containsCardNumber(v), true, JSON.stringify(v));
});

test('digit runs that are not card numbers pass: order and phone numbers, timestamps, long ids', () => {
  for (const v of [
    'order 12345', 'Order #2024-000123', '+49 170 1234567', '+1 (415) 555-2671', '4242424242424241',
    '1718000000000', // a millisecond timestamp: 13 digits starting with 1
    '0000424242424242', // zero-padded: no card starts with 0
    '2024-01-15T12:30:45Z', '12345678901234567890123', 'pay_01j9z3k4m5n6p7q8r9s0t1v2w3',
    // A UUID whose letter-bound "4" and last group would join into 13 Luhn-valid digits.
    'order_ed677d4f-f61e-4604-8af4-489876492035',
  ]) {
    assert.equal(containsCardNumber(v), false, v);
  }
});

test('card data as a key: a number is reported at its object, a card field name in any style', () => {
  assert.equal(findCardData({ metadata: { '4242 4242 4242 4242': 'x' } }), 'metadata');
  for (const key of ['credit_card_number', 'card-number', 'CardNumber', 'CARD_NUMBER', 'cardNo', 'card no', 'cvv', 'CVC2',
    'security-code', 'cardVerificationValue', 'PAN', 'payer_cvv', 'cc_num']) {
    assert.equal(isCardFieldName(key), true, key);
    assert.equal(findCardData({ metadata: { [key]: 'x' } }), `metadata.${key}`, key);
  }
  for (const key of ['card_notes', 'cardholder_name', 'card_brand', 'last4', 'company', 'discount', 'order_no', 'display']) {
    assert.equal(isCardFieldName(key), false, key);
  }
});

test('the gateway refuses with card_data_not_accepted naming the field, never the value', () => {
  assert.throws(() => refuseCardData({ description: 'pay 4242 4242 4242 4242' }), (err: unknown) => {
    assert.ok(err instanceof DomainError);
    assert.equal(err.code, 'card_data_not_accepted');
    assert.equal(err.options.param, 'description');
    assert.doesNotMatch(err.message, /4242/);
    return true;
  });
  assert.doesNotThrow(() => refuseCardData({ description: 'order 12345', metadata: { phone: '+44 20 7946 0958' } }));
});
