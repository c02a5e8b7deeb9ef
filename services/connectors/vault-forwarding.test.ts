import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createVaultForwarders, forwardingFetch, type PreparedRequest, type VaultForwarder } from './vault-forwarding.js';

// The forwarding seam: what a destination's SDK transport hands the vault, and what it reads back.

const route = { vault: 'stripe', vaultAccountId: 'pac_vault', token: 'pm_123', attemptId: 'att_1' };

function recordingVault(answer = { status: 422, headers: { 'transient-error': 'false' }, body: '{"errorCode":"101"}' }) {
  const sent: PreparedRequest[] = [];
  const forwarder: VaultForwarder = {
    placeholders: () => ({ number: '', expiryMonth: '', expiryYear: '', cvc: '', holderName: '' }),
    async forward(r, request) {
      assert.deepEqual(r, route);
      sent.push(request);
      return answer;
    },
  };
  return { forwarder, sent };
}

test('a forwarding fetch hands the vault the prepared request and answers the destination\'s response as a Response', async () => {
  const { forwarder, sent } = recordingVault();
  const send = forwardingFetch(forwarder, route);
  const res = await send('https://checkout-test.adyen.com/v72/payments', {
    method: 'POST', headers: { 'X-API-Key': 'k', 'Idempotency-Key': 'att_1' }, body: '{"reference":"att_1"}',
  });
  assert.deepEqual(sent, [{
    url: 'https://checkout-test.adyen.com/v72/payments', headers: { 'x-api-key': 'k', 'idempotency-key': 'att_1' }, body: '{"reference":"att_1"}',
  }]);
  assert.equal(res.status, 422);
  assert.equal(res.headers.get('transient-error'), 'false');
  assert.deepEqual(await res.json(), { errorCode: '101' });
});

test('only a POST with a text body is forwarded; anything else never reaches the vault', async () => {
  const { forwarder, sent } = recordingVault();
  const send = forwardingFetch(forwarder, route);
  await assert.rejects(send('https://x.example/payments', { method: 'GET' }), /forwards POST requests/);
  assert.equal(sent.length, 0);
});

test('forwarders are found by the vault their provider serves; providers without one add none', () => {
  const { forwarder } = recordingVault();
  const deps = { credentials: { get: async () => undefined }, network: { allowlist: [] } };
  const vaults = createVaultForwarders([
    { capabilities: { vault: 'stripe' }, forwarder: () => forwarder },
    { capabilities: {} },
    { capabilities: { vault: 'basis_theory' } },
  ], deps);
  assert.equal(vaults.forVault('stripe'), forwarder);
  assert.equal(vaults.forVault('basis_theory'), undefined);
});
