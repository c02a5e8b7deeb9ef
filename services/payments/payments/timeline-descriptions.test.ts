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

test('the routing decision says why its first provider is first, for every strategy', () => {
  const routed = (data: Record<string, unknown>) => describeEntry({ type: 'routing.decided', title: '', data: {
    rule: 'eur', candidates: ['demo_beta', 'demo_alpha'], explored: false,
    scores: [{ provider_name: 'Demo Beta', score: 35 }, { provider_name: 'Demo Alpha', score: 40 }], ...data,
  } }, 'EUR');
  assert.match(routed({ strategy: 'priority', reason: "the rule's order: Demo Beta, then Demo Alpha" }),
    /demo_beta, demo_alpha\. Ordered by priority, rule "eur"'s order: Demo Beta first, as listed\.$/);
  assert.match(routed({ strategy: 'cheapest', rule: 'default' }),
    /Ordered by cost, cheapest first for this amount: Demo Beta first, its fee 0\.35 EUR\.$/);
  const reason = 'Demo Beta first: 94.1 % over 412 recent EUR DE card payments; Demo Alpha 90.3 % over 388 recent EUR DE card payments; 5 % exploration';
  assert.match(routed({ strategy: 'success_rate', reason }), new RegExp(`Ordered by success rate: ${reason.replaceAll('.', '\\.')}\\.$`));
  assert.match(routed({ strategy: 'expected_value', reason: 'Demo Beta first: x' }), /Ordered by expected value: Demo Beta first: x\.$/);
  assert.match(routed({ strategy: 'elimination', reason: 'Demo Beta first: y' }), /Ordered by elimination: Demo Beta first: y\.$/);
  assert.match(routed({ strategy: 'volume_split', reason: 'Demo Beta first: z' }), /Ordered by volume split: Demo Beta first: z\.$/);
  assert.match(routed({ strategy: 'success_rate', reason: 'Demo Beta first by exploration (fewer than 20 recent outcomes)', explored: true }),
    /This payment took the exploration share: Demo Beta was put first on purpose/);
  // Entries written before routing sent its reasons read as they always did.
  assert.equal(describeEntry({ type: 'routing.decided', title: '', data: { candidates: ['demo_beta'] } }, 'EUR'),
    'Eligible providers, tried in this order until one completes the payment: demo_beta.');
});
