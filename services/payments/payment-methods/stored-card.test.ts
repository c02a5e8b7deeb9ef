import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storedCardFacts } from './stored-card.js';
import type { PaymentMethodRecord } from './store.js';

const method = (type: string, display: Record<string, string>) => ({ type, display }) as PaymentMethodRecord;

test('a stored card\'s display gives its network and BIN range in the connectors\' vocabulary', () => {
  assert.deepEqual(storedCardFacts(method('card', { brand: 'Visa', last4: '4242' })), { network: 'visa', binRange: null });
  assert.deepEqual(storedCardFacts(method('card', { brand: 'MC', bin: '55554444' })), { network: 'mastercard', binRange: '555544' });
});

test('nothing from a display that does not say, another method, or a number longer than a BIN', () => {
  assert.equal(storedCardFacts(method('card', { last4: '4242' })), undefined);
  assert.equal(storedCardFacts(method('wallet', { brand: 'visa' })), undefined);
  // Sixteen digits may be a card number: refused whole, never cut to six.
  assert.equal(storedCardFacts(method('card', { bin: '4242424242424242' })), undefined);
});
