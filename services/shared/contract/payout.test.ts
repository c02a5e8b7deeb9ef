import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rawAccountNumberField } from './payout.js';

test('an IBAN (valid checksum) is refused in every destination field, compact, grouped or in a sentence', () => {
  for (const iban of ['GB82WEST12345698765432', 'GB82 WEST 1234 5698 7654 32', 'de89-3704-0044-0532-0130-00', 'NL91ABNA0417164300']) {
    assert.equal(rawAccountNumberField({ token: iban }), 'destination.token', iban);
    assert.equal(rawAccountNumberField({ display: `IBAN ${iban}` }), 'destination.display', iban);
    assert.equal(rawAccountNumberField({ holderName: `Ada Lovelace ${iban}` }), 'destination.holder_name', iban);
  }
});

test('account numbers: eight or more digits in a display or a name; a token made of nothing but them', () => {
  assert.equal(rawAccountNumberField({ display: '12345678' }), 'destination.display');
  assert.equal(rawAccountNumberField({ display: 'sort 12-34-56 acct 1234' }), undefined, 'six and four digits');
  assert.equal(rawAccountNumberField({ display: '12-34-56 12345678' }), 'destination.display');
  assert.equal(rawAccountNumberField({ holderName: 'Account 000123456789' }), 'destination.holder_name');
  assert.equal(rawAccountNumberField({ token: '000123456789' }), 'destination.token');
  assert.equal(rawAccountNumberField({ token: '1234 5678 90' }), 'destination.token');
});

test('tokens and masked displays of the usual shapes pass', () => {
  for (const d of [
    { token: 'ben_01hx3k9q8z', display: '•••• 6789', holderName: 'Ada Lovelace' },
    { token: 'btok_US1234567', display: 'DE89 •••• •••• 3000' },
    { token: 'wal_8f3a9c', display: 'ada@example.com' },
    // A checksum that fails is no IBAN; the token's own shape (letters, a prefix) is left alone.
    { token: 'GB00WEST12345698765432' },
    { token: 'pm_1234567890abcdef' },
    {},
  ]) {
    assert.equal(rawAccountNumberField(d), undefined, JSON.stringify(d));
  }
});
