import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DESCRIBED_TYPES, describeEntry } from './timeline-descriptions.js';

test('every entry type is described, from its data alone, money as money', () => {
  for (const type of DESCRIBED_TYPES) {
    const text = describeEntry({ type, title: 'Some title', data: {} }, 'EUR');
    assert.ok(text.length > 10 && !text.includes('undefined'), `${type}: ${text}`);
  }
  assert.equal(describeEntry({ type: 'payment.captured', title: '', data: { amount: 3000, released: 2000 } }, 'EUR'),
    '30.00 EUR captured; the other 20.00 EUR of the authorization was released to the customer.');
  assert.match(describeEntry({ type: 'payment.created', title: '', data: { amount: 500 } }, 'JPY'), /500 JPY/);
  assert.equal(describeEntry({ type: 'payment.refund_reversed', title: '', data: {
    refund_id: 'rf_2', amount: 2000, refunded_amount: 1000, from_status: 'refunded', status: 'partially_refunded',
  } }, 'EUR'), 'Refund rf_2 failed after it was counted, so its 20.00 EUR is refundable again: 10.00 EUR refunded in all, '
    + 'and the payment is partially_refunded (was refunded).');
  assert.match(describeEntry({ type: 'refund.failed', title: '', data: { refund_id: 'rf_2', after_acceptance: true, amount: 2000 } }, 'EUR'),
    /which it had accepted, failed: the customer did not get 20.00 EUR back, so it no longer counts as refunded/);
  // A type written by no one yet still reads as a sentence.
  assert.equal(describeEntry({ type: 'something.new', title: 'Something new' }, 'EUR'), 'Something new.');
});
