import assert from 'node:assert/strict';
import { test } from 'node:test';
import { containsAccountNumber, payoutFreeTextAccountField, rawAccountNumberField } from './payout.js';

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

test('IBANs in any width, digit or separator form; account numbers after a label', () => {
  for (const text of [
    'refund to GB82WEST12345698765432 please', 'GB82 WEST 1234 5698 7654 32', 'gb82.west.1234.5698.7654.32',
    'ＧＢ８２ＷＥＳＴ１２３４５６９８７６５４３２', 'DE89\u00a03704\u00a00044\u00a00532\u00a00130\u00a000', 'NL91_ABNA_0417_1643_00',
    'Account 12345678', 'acct no: 1234-5678-90', 'Kontonummer 0532013000', 'a/c 00123456', 'routing 021000021 x',
  ]) {
    assert.equal(containsAccountNumber(text), true, text);
  }
  for (const text of ['order 12345678', 'INV-2024000123', 'accepted 12345678', 'account 1234', 'GB00WEST12345698765432', '+44 20 7946 0958']) {
    assert.equal(containsAccountNumber(text), false, text);
  }
});

test('a payout body: description, reference and metadata are searched; a key is reported at metadata', () => {
  assert.equal(payoutFreeTextAccountField({ description: 'to DE89 3704 0044 0532 0130 00' }), 'description');
  assert.equal(payoutFreeTextAccountField({ reference: 'NL91ABNA0417164300' }), 'reference');
  assert.equal(payoutFreeTextAccountField({ metadata: { note: 'IBAN GB82WEST12345698765432' } }), 'metadata.note');
  assert.equal(payoutFreeTextAccountField({ metadata: { GB82WEST12345698765432: 'x' } }), 'metadata');
  assert.equal(payoutFreeTextAccountField({ description: 'May payout', reference: 'INV-2024000123', metadata: { order: '12345678' } }), undefined);
});

test('destination fields are normalised too: full-width digits and no-break spaces hide nothing', () => {
  assert.equal(rawAccountNumberField({ display: '１２３４５６７８' }), 'destination.display');
  assert.equal(rawAccountNumberField({ holderName: 'Ada 1234\u00a05678' }), 'destination.holder_name');
  assert.equal(rawAccountNumberField({ token: '１２３４ ５６７８ ９０' }), 'destination.token');
});

test('ordinary references are not taken for IBANs: mod 97 alone passes one mixed text in a hundred', () => {
  assert.equal(containsAccountNumber('chaos_parts_bc218255_webhooks_po_0'), false, 'a reference once refused');
  // Fixed pseudo-random references of a common shape: before country lengths and formats were
  // checked, 10 of these 2,000 passed the checksum and were refused.
  let seed = 42;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
  const words = ['webhooks', 'ledger', 'order', 'invoice', 'payouts'];
  for (let i = 0; i < 2000; i++) {
    const reference = `ref_${next().toString(16)}_${words[next() % words.length]}_po_${next() % 100}`;
    assert.equal(containsAccountNumber(reference), false, reference);
  }
  assert.equal(containsAccountNumber('pay to IBAN GB82 WEST 1234 5698 7654 32 please'), true);
});
