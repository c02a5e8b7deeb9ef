import assert from 'node:assert/strict';
import { test } from 'node:test';
import { binRangeOf, cardFactsOf, cardNetworkOf, withNetworkTransactionId } from './card-facts.js';

test('providers\' brand names become one vocabulary (Stripe\'s); an unknown brand is no network', () => {
  const names: Array<[string, string | undefined]> = [
    ['visa', 'visa'], ['VISA', 'visa'], ['visadankort', 'visa'], ['mc', 'mastercard'], ['mc_applepay', 'mastercard'],
    ['mastercard', 'mastercard'], ['amex', 'amex'], ['cup', 'unionpay'], ['cartebancaire', 'cartes_bancaires'],
    ['cartes_bancaires', 'cartes_bancaires'], ['maestro', 'maestro'], ['jcb', 'jcb'], ['unknown', undefined],
    ['mcx', undefined], ['', undefined],
  ];
  for (const [brand, network] of names) assert.equal(cardNetworkOf(brand), network, brand);
  assert.equal(cardNetworkOf(42), undefined);
});

test('a BIN range is the first six digits of a 6 to 8 digit BIN, never more, and nothing else is taken', () => {
  assert.equal(binRangeOf('411111'), '411111');
  assert.equal(binRangeOf('41111112'), '411111', 'an 8-digit BIN gives its first six');
  // A card number, or anything else, is refused rather than cut: it never reaches an event.
  for (const bad of ['4111111111111111', '41111', '4111 11', 'abcdef', 411111, null]) assert.equal(binRangeOf(bad), undefined, String(bad));
});

test('the facts when the answer told one of them, else none', () => {
  assert.deepEqual(cardFactsOf('mc', '555544'), { network: 'mastercard', binRange: '555544' });
  assert.deepEqual(cardFactsOf(undefined, '555544'), { network: null, binRange: '555544' });
  assert.equal(cardFactsOf('unknown', undefined), undefined);
});

test('a network transaction id is kept only on a success, and only when it is letters and digits', () => {
  const ok = { outcome: 'success', providerPaymentId: 'p', providerCode: null, providerMessage: null, fee: 0n } as const;
  assert.equal(withNetworkTransactionId(ok, ' 483297461032178 ').networkTransactionId, '483297461032178');
  assert.equal(withNetworkTransactionId(ok, 'MCC0123AB').networkTransactionId, 'MCC0123AB');
  for (const bad of ['', 'a b', 'x'.repeat(65), '1;DROP', 42, null, undefined]) {
    assert.equal(withNetworkTransactionId(ok, bad).networkTransactionId, undefined, String(bad));
  }
  const declined = { ...ok, outcome: 'soft_decline' } as const;
  assert.equal(withNetworkTransactionId(declined, '483297461032178').networkTransactionId, undefined);
});
