import assert from 'node:assert/strict';
import { test } from 'node:test';
import { oneOffCredential, storedCredentials } from './eligibility.js';
import type { CredentialRecord } from './store.js';

const issuerOf = (token: string) => (token.startsWith('pm_') ? 'stripe' : undefined);
// Stripe's vault references are Stripe PaymentMethods (stripe-vault/facts.ts).
const VAULT_ISSUERS = new Map([['stripe', 'stripe']]);
const credential = (over: Partial<CredentialRecord>): CredentialRecord => ({
  id: 'pmc_1', paymentMethodId: 'pm_1', kind: 'provider_token', providerCode: null, providerAccountId: null, vaultCode: null,
  token: 'x', createdAt: new Date(0), ...over,
});
const at = (providerCode: string, providerAccountId = `pac_${providerCode}`, vault?: string) => ({ providerCode, providerAccountId, vault });

test('a stored method\'s provider tokens reach their issuers, each sent its own token; a demo account the first', () => {
  const c = storedCredentials([
    credential({ token: 'pm_1', providerCode: 'stripe' }),
    credential({ token: 'adyen_bound', providerCode: 'adyen', providerAccountId: 'pac_a2' }),
  ], 'live', issuerOf, [], VAULT_ISSUERS);
  assert.deepEqual(c.reach, [{ providerCode: 'stripe', providerAccountId: undefined }, { providerCode: 'adyen', providerAccountId: 'pac_a2' }]);
  assert.equal(c.tokenFor(at('stripe')), 'pm_1');
  assert.equal(c.tokenFor(at('adyen', 'pac_a2')), 'adyen_bound');
  assert.equal(c.tokenFor(at('adyen', 'pac_a1')), undefined, 'an account-bound token goes to its account only');
  assert.equal(c.tokenFor(at('demo_alpha')), 'pm_1');
});

test('a vault reference: Stripe\'s is a Stripe PaymentMethod; through a connected vault it reaches the destinations', () => {
  const vaults = [{ vault: 'stripe', destinations: ['adyen'], feeFixed: 0n, feeBps: 0 }];
  const c = storedCredentials([credential({ kind: 'vault_token', token: 'pm_vaulted', vaultCode: 'stripe' })], 'live', issuerOf, vaults, VAULT_ISSUERS);
  assert.deepEqual(c.reach, [
    { providerCode: 'stripe' },
    { providerCode: 'adyen', vault: 'stripe', vaultFeeFixed: 0n, vaultFeeBps: 0 },
  ]);
  assert.equal(c.tokenFor(at('stripe')), 'pm_vaulted');
  assert.equal(c.tokenFor(at('adyen', 'pac_adyen', 'stripe')), 'pm_vaulted');
  const bt = storedCredentials([credential({ kind: 'vault_token', token: 'bt_1', vaultCode: 'basis_theory' })], 'live', issuerOf, vaults, VAULT_ISSUERS);
  assert.deepEqual(bt.reach, [], 'a Basis Theory token without a connected Basis Theory vault reaches nothing');
});

test('a method stored without provider_code: its token\'s shape, else any account in test mode only', () => {
  assert.deepEqual(storedCredentials([credential({ token: 'pm_x' })], 'live', issuerOf, [], VAULT_ISSUERS).reach, [{ providerCode: 'stripe', providerAccountId: undefined }]);
  assert.deepEqual(storedCredentials([credential({ token: 'opaque' })], 'live', issuerOf, [], VAULT_ISSUERS).reach, []);
  const test = storedCredentials([credential({ token: 'opaque' })], 'test', issuerOf, [], VAULT_ISSUERS);
  assert.equal(test.reach, undefined);
  assert.equal(test.tokenFor(at('anything')), 'opaque');
});

test('a one-off token: provider_code, else its shape, else any account in test mode; a live one of unknown issuer is refused; no token: provider_code alone binds', () => {
  assert.deepEqual(oneOffCredential('opaque', 'adyen', 'live', issuerOf).reach, [{ providerCode: 'adyen', providerAccountId: undefined }]);
  assert.deepEqual(oneOffCredential('pm_x', undefined, 'live', issuerOf).reach, [{ providerCode: 'stripe', providerAccountId: undefined }]);
  assert.equal(oneOffCredential('opaque', undefined, 'test', issuerOf).reach, undefined);
  assert.equal(oneOffCredential(undefined, undefined, 'live', issuerOf).reach, undefined, 'no token: nothing to go by');
  const pinned = oneOffCredential(undefined, 'paypal', 'live', issuerOf);
  assert.deepEqual(pinned.reach, [{ providerCode: 'paypal' }], 'no token, but the provider named: only it');
  assert.equal(pinned.tokenFor(at('paypal')), undefined);
  assert.throws(() => oneOffCredential('opaque', undefined, 'live', issuerOf), (err: any) => {
    assert.match(err.message, /payment_method\.provider_code is required/);
    return true;
  });
});
